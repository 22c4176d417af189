// Capacity plans (tilecast/capacity.hpp): the cheapest option meets the SLO and one replica
// fewer does not; an SLO nothing meets is reported, not hidden; bad requests are named.
#include "tilecast/capacity.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
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
