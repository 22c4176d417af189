// Capacity plans (tilecast/capacity.hpp): the cheapest option meets the SLO and one replica
// fewer does not; an SLO nothing meets is reported, not hidden; bad requests are named.
#include "tilecast/capacity.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "common/format.hpp"
#include "forecast/work_budget.hpp"
#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/footing.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

CapacityRequest capacity_request(double qps, double ttft, double tpot) {
  CapacityRequest r;
  r.load.serving.prompt = 512;
  r.load.serving.output = 128;
  r.load.requests = 300;
  r.qps = qps;
  r.slo_ttft_ms = ttft;
  r.slo_tpot_ms = tpot;
  r.max_gpus = 16;
  return r;
}

}  // namespace

TEST_SUITE("capacity") {
  TEST_CASE("the cheapest option meets the SLO at P99 and one replica fewer misses it") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    const CapacityRequest r = capacity_request(40, 300, 25);
    int lines = 0;
    const CapacityPlan p = plan_capacity({gpu}, model, r, [&](const std::string&) { ++lines; });
    REQUIRE(!p.options.empty());
    const CapacityOption& best = p.options.front();
    REQUIRE(best.meets);
    CHECK(lines == p.simulations);
    CHECK(best.ttft_p99_ms <= 300);
    CHECK(best.tpot_p99_ms <= 25);
    CHECK(best.gpus == best.replicas * best.tp);
    for (const CapacityOption& o : p.options)
      if (o.meets) CHECK(o.gpus >= best.gpus);
    if (best.replicas > 1) {  // minimal: one replica fewer misses
      LoadRequest lr = r.load;
      lr.serving.tp = best.tp;
      lr.qps = r.qps / (best.replicas - 1);
      const LoadForecast f = simulate_serving(gpu, model, lr);
      CHECK((f.ttft_ms.p99 > 300 || f.tpot_ms.p99 > 25));
    }
    CHECK(best.tokens_per_gpu_hour > 0);
  }

  TEST_CASE("an SLO nothing meets is reported with why; prices rank options") {
    const ModelConfig& model = find_model("llama3-8b");
    const CapacityPlan none =
        plan_capacity({find_gpu("h100-sxm")}, model, capacity_request(10, 0.001, 0.001));
    for (const CapacityOption& o : none.options) {
      CHECK_FALSE(o.meets);
      CHECK_FALSE(o.why.empty());
    }
    const auto j = nlohmann::json::parse(capacity_plan_to_json(model, none));
    CHECK(j["best"].is_null());
    CapacityRequest priced = capacity_request(20, 500, 30);
    priced.price_per_gpu_hour = {10, 1};
    const CapacityPlan p =
        plan_capacity({find_gpu("h100-sxm"), find_gpu("a100-80gb-sxm")}, model, priced);
    REQUIRE(p.options.front().meets);
    CHECK(p.options.front().gpu == "a100-80gb-sxm");
    CHECK(p.options.front().tokens_per_dollar > 0);
  }

  // What a plan assumes: each option's footing and the caveats every simulation of a GPU gave
  // (its precision, transferred models, matrix clock), not a run's own rate or cache size.
  TEST_CASE("a plan says what its simulations stood on") {
    const ModelConfig& model = find_model("llama3-8b");
    CapacityRequest r = capacity_request(2, 2000, 100);
    r.load.requests = 40;
    r.max_gpus = 2;
    const CapacityPlan p = plan_capacity({find_gpu("a100-80gb-sxm"), find_gpu("mi300x")}, model, r);
    for (const CapacityOption& o : p.options) {
      REQUIRE(o.footing);
      CHECK(*o.footing == (o.gpu == "mi300x" ? Footing::transferred : Footing::learned));
    }
    auto has = [&](std::string_view prefix) {
      int n = 0;
      for (const std::string& c : p.caveats) n += c.rfind(prefix, 0) == 0;
      return n;
    };
    CHECK(has("Engine: the fused engine") == 1);
    CHECK(has("Precision: bf16") == 1);
    CHECK(has("Transferred model:") >= 1);
    CHECK(has("Arrivals:") == 0);   // each replica count's own rate
    CHECK(has("Scheduler:") == 0);  // each GPU and TP's own KV blocks
    const auto j = nlohmann::json::parse(capacity_plan_to_json(model, p));
    CHECK(j["options"][0].contains("footing"));
    // an SLO missed at one replica of one GPU says so in the singular
    CapacityRequest one = capacity_request(2, 0.001, 0.001);
    one.max_gpus = 1;
    const CapacityPlan missed = plan_capacity({find_gpu("a100-80gb-sxm")}, model, one);
    REQUIRE(missed.options.size() == 1);
    CHECK(missed.options[0].why == "the SLO is missed even at 1 replica (1 GPU)");
  }

  // The search tries one replica, then the most, then bisects; the work budget is checked
  // before each simulation at its least (forecast/work_budget.hpp) and as the simulations run,
  // on the plan's meter: a search past it ends the plan.
  TEST_CASE("a service one replica serves costs one simulation an option; past the budget, none") {
    const ModelConfig& model = find_model("llama3-8b");
    CapacityRequest easy = capacity_request(1, 5000, 500);
    easy.load.requests = 40;
    const CapacityPlan p = plan_capacity({find_gpu("h100-sxm")}, model, easy);
    // TP 1, 2, 4 and 8 at one replica each, then the best's 80% band at its slow edge (at its
    // fast edge one replica needs no simulation)
    CHECK(p.simulations == 5);
    for (const CapacityOption& o : p.options) CHECK((o.meets && o.replicas == 1));
    // a request at a time (one each 1,000 s): requests of 3,000 steps of one sequence, 2 steps of
    // work each (forecast/work_budget.hpp), as many as make a simulation 47 % of the budget; the
    // plan's least is within the budget, its search (TP 1 and 2 at one replica, then TP 1 at two)
    // is not
    CapacityRequest r = capacity_request(0.001, 0.001, 0.001);
    r.load.serving.prompt = 64;
    r.load.serving.output = 2999;
    r.load.requests = std::int64_t(0.47 * detail::kMaxReplaySteps /
                                   (3000 * detail::kReplayStepsPerSimulatedStep));
    r.max_gpus = 2;
    int ran = 0;
    detail::reset_work_ledger();
    const std::string e = test::error_of([&] {
      plan_capacity({find_gpu("h100-sxm")}, model, r, [&](const std::string&) { ++ran; });
    });
    CHECK(ran == 2);
    CHECK(e.find("capacity plan: over the budget of " + detail::format_g(detail::kMaxReplaySteps) +
                 " steps of work per request") != std::string::npos);
    CHECK(e.find("reduce requests, output tokens, max_gpus or the GPUs named") !=
          std::string::npos);
    CHECK(detail::work_ledger().work_done <= detail::kMaxReplaySteps);
    CHECK(detail::work_ledger().work_done > 0.9 * detail::kMaxReplaySteps);
  }

  // A model no single node holds (DeepSeek-R1 in FP8 is 673 GB: 84 GB a GPU at TP 8 on 80 GB
  // H100s) is planned across nodes, at 16 GPUs a replica and more; one a node holds is not.
  TEST_CASE("a model no node holds is planned with tensor parallelism across nodes") {
    CapacityRequest r = capacity_request(1, 5000, 500);
    r.load.requests = 40;
    r.load.serving.dtype = DataType::fp8;
    r.max_gpus = 32;
    const CapacityPlan big = plan_capacity({find_gpu("h100-sxm")}, find_model("deepseek-r1"), r);
    REQUIRE(!big.options.empty());
    const CapacityOption& best = big.options.front();
    REQUIRE(best.meets);
    CHECK(best.tp == 16);
    CHECK(best.gpus == 16);
    std::vector<int> across;
    for (const CapacityOption& o : big.options) {
      if (o.tp * o.ep <= 8) {  // every single-node layout, with why it does not fit
        CHECK_FALSE(o.meets);
        CHECK(o.why.find("does not fit") != std::string::npos);
      } else {
        across.push_back(o.tp);
      }
    }
    CHECK(across == std::vector<int>{16, 32});  // up to max_gpus
    // a model a node holds keeps its search within the node
    const CapacityPlan small = plan_capacity({find_gpu("h100-sxm")}, find_model("llama3-8b"), r);
    for (const CapacityOption& o : small.options) CHECK(o.tp <= 8);
  }

  TEST_CASE("a capacity request takes the serving request's decode attention") {
    const std::string base =
        R"({"gpu":"h100-sxm","model":"llama3-8b","qps":1,"prompt":64,"output":8,"requests":8,)"
        R"("slo_ttft_ms":1000,"slo_tpot_ms":100,"max_gpus":1)";
    const auto grouped = nlohmann::json::parse(api::plan_capacity(base + "}"));
    const auto per_head = nlohmann::json::parse(
        api::plan_capacity(base + R"(,"decode_attention":"per-query-head"})"));
    CHECK_FALSE(grouped.contains("decode_attention"));
    CHECK(per_head["decode_attention"] == "per-query-head");
    CHECK(per_head["options"][0]["tpot_p99_ms"].get<double>() >
          grouped["options"][0]["tpot_p99_ms"].get<double>());
    CHECK_THROWS_WITH_AS(api::plan_capacity(base + R"(,"decode_attention":"flat"})"),
                         doctest::Contains("capacity request: field 'decode_attention'"), Error);
    // a range ratio beside a trace is the request's error, not every option's
    CHECK_THROWS_WITH_AS(
        api::plan_capacity(base +
                           R"(,"range_ratio":0.2,"trace":"arrival_ms,prompt,output\n0,8,4\n"})"),
        doctest::Contains("capacity request: field 'range_ratio'"), Error);
  }

  TEST_CASE("bad capacity requests are named") {
    CHECK_THROWS_WITH_AS(
        api::plan_capacity(
            R"({"gpu":"h100-sxm","model":"llama3-8b","qps":5,"prompt":1,"output":1})"),
        "capacity request: fields 'slo_ttft_ms' and 'slo_tpot_ms' are both required", Error);
    CHECK_THROWS_WITH_AS(
        api::plan_capacity(R"({"gpu":["h100-sxm","t4"],"model":"llama3-8b","qps":5,"prompt":1,)"
                           R"("output":1,"slo_ttft_ms":1,"slo_tpot_ms":1,)"
                           R"("price_per_gpu_hour":[1,2,3]})"),
        "capacity: give one price per GPU hour, or one per GPU (2)", Error);
    CHECK_THROWS_AS(api::plan_capacity(R"({"gpu":"h100-sxm","model":"llama3-8b","qps":5,)"
                                       R"("prompt":1,"output":1,"slo_ttft_ms":1,)"
                                       R"("slo_tpot_ms":1,"tp":2})"),
                    Error);
  }
}
