// Expert parallelism with attention data parallelism under load (serve/expert_parallel.hpp): each
// GPU's share of the routed experts and of the requests, its memory, the all-to-alls, the
// replica's throughput, and the setups it refuses with what is allowed.
#include "serve/expert_parallel.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "graph/blocks/blocks.hpp"
#include "serve/simulator/step_cost.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;
using detail::MoeSpec;
using detail::routed_experts;
using detail::RoutedExperts;

namespace {

// Qwen3-235B-A22B's offline run on 8 H200s in FP8, as TensorRT-LLM's perf overview runs it
LoadRequest offline(int tp, int ep, std::int64_t requests = 800) {
  LoadRequest r;
  r.serving.prompt = 1000;
  r.serving.output = 200;
  r.serving.dtype = DataType::fp8;
  r.serving.tp = tp;
  r.serving.ep = ep;
  r.arrivals = Arrivals::closed_loop;
  r.concurrency = requests;
  r.requests = requests;
  r.scheduler = Scheduler::no_evict;
  return r;
}

std::string error_of(const GpuSpec& gpu, const ModelConfig& m, const LoadRequest& r) {
  try {
    simulate_serving(gpu, m, r);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_SUITE("expert_parallel") {
  TEST_CASE("one GPU's experts see every GPU's tokens and compute its share of the rows") {
    MoeSpec s{.hidden = 4096, .experts = 128, .top_k = 8, .expert_inner = 1536};
    for (std::int64_t rows : {1, 7, 64, 1000, 100000}) {
      const RoutedExperts one = routed_experts(s, rows);
      MoeSpec split = s;
      split.shards = 8;
      const RoutedExperts eight = routed_experts(split, rows);
      INFO(rows);
      // each GPU computes its own tokens' top-k rows between its 16 experts
      CHECK(eight.fewest * eight.active + eight.heavier == rows * s.top_k);
      CHECK(eight.active <= 16);
      // its experts see 8x the tokens: as likely active as one GPU's experts at 8x the rows
      const RoutedExperts whole = routed_experts(s, 8 * rows);
      CHECK(std::abs(double(eight.active) - double(whole.active) / 8) <= 1);
      CHECK(one.fewest * one.active + one.heavier == rows * s.top_k);
    }
  }

  TEST_CASE("the replica runs every GPU's requests; each GPU holds its share of the experts") {
    const GpuSpec& h200 = find_gpu("h200");
    const ModelConfig& m = find_model("qwen3-235b-a22b");
    // on one H200 the FP8 model (235 GB) does not fit; over 8 GPUs by experts it does
    CHECK(error_of(h200, m, offline(1, 1)).find("does not fit") != std::string::npos);
    const LoadForecast f = simulate_serving(h200, m, offline(1, 8));
    CHECK(f.output_tokens_per_s > 0);
    CHECK(f.requests_per_s * f.duration_ms / 1000 == doctest::Approx(800).epsilon(1e-9));
    CHECK(f.comm_model.find("all-to-all") != std::string::npos);
    int said = 0;
    for (const auto& c : f.caveats)
      said += c.find("8 GPUs, expert parallel with attention data parallel") != std::string::npos;
    CHECK(said == 1);
    // the GPU's weights: the dense part whole, an eighth of the routed experts
    const double routed = detail::routed_expert_params(h200, m, detail::ServingTypes{}).all;
    CHECK(routed > 0.9 * m.params());  // a sparse model: nearly all its weights are experts'
    CHECK(routed < m.params());
    // with half the GPUs, each holds twice the experts: less KV cache per GPU
    const LoadForecast four = simulate_serving(h200, m, offline(1, 4));
    CHECK(four.kv_blocks < f.kv_blocks);
    // the same load over twice the GPUs finishes sooner
    CHECK(f.duration_ms < four.duration_ms);
    // the JSON answer says ep
    nlohmann::json req = {{"gpu", "h200"},      {"model", "qwen3-235b-a22b"},
                          {"prompt", 1000},     {"output", 200},
                          {"concurrency", 800}, {"requests", 800},
                          {"precision", "fp8"}, {"ep", 8},
                          {"seed", 0}};
    const auto j = nlohmann::json::parse(api::forecast_serving(req.dump()));
    CHECK(j["ep"] == 8);
    CHECK(j["tp"] == 1);
  }

  TEST_CASE("the all-to-alls add to each step, growing with its tokens") {
    const GpuSpec& h200 = find_gpu("h200");
    const ModelConfig& m = find_model("qwen3-235b-a22b");
    ServingRequest one, eight;
    one.dtype = eight.dtype = DataType::fp8;
    eight.ep = 8;
    detail::StepCost a(h200, m, one), b(h200, m, eight);
    detail::AttentionLoad none;
    // one GPU's step under ep: its tokens' share of the experts' rows, its dispatch and combine
    CHECK(b.step_ms(1024, 1, none) > 0);
    CHECK(b.comm_model().find("all-to-all") != std::string::npos);
    CHECK(a.comm_model().empty());
    CHECK(detail::dispatch_bytes(m, 2048, DataType::bf16) ==
          2 * detail::dispatch_bytes(m, 1024, DataType::bf16));
  }

  TEST_CASE("what expert parallelism refuses names ep and what is allowed") {
    const GpuSpec& h200 = find_gpu("h200");
    const ModelConfig& moe = find_model("qwen3-235b-a22b");
    CHECK(error_of(h200, find_model("llama3-70b"), offline(1, 8)).find("no routed experts") !=
          std::string::npos);
    CHECK(error_of(h200, moe, offline(1, 3)).find("ep 3 does not divide") != std::string::npos);
    CHECK(error_of(h200, moe, offline(2, 4)).find("tp must be 1") != std::string::npos);
    CHECK(error_of(h200, moe, offline(1, 0)).find("ep must be 1 to 1024") != std::string::npos);
    ServingRequest s = offline(1, 8).serving;
    s.batch = 8;
    CHECK_THROWS_WITH_AS(forecast_serving(h200, moe, s),
                         doctest::Contains("expert parallelism is forecast for a request stream"),
                         Error);
    nlohmann::json cap = {{"gpu", {"h200"}},    {"model", "qwen3-235b-a22b"},
                          {"qps", 1},           {"slo_ttft_ms", 1000},
                          {"slo_tpot_ms", 100}, {"prompt", 100},
                          {"output", 10},       {"ep", 8}};
    CHECK_THROWS_WITH_AS(api::plan_capacity(cap.dump()), doctest::Contains("field 'ep'"), Error);
  }

  TEST_CASE("a capacity plan tries a mixture's experts over 2, 4 and 8 GPUs; a dense model's not") {
    auto options = [](const std::string& model) {
      nlohmann::json cap = {{"gpu", "h100-sxm"},   {"model", model},     {"qps", 2},
                            {"slo_ttft_ms", 5000}, {"slo_tpot_ms", 200}, {"prompt", 256},
                            {"output", 32},        {"requests", 50},     {"max_gpus", 8}};
      return nlohmann::json::parse(api::plan_capacity(cap.dump()))["options"];
    };
    int ep = 0;
    for (const auto& o : options("qwen3-30b-a3b"))
      if (o.contains("ep")) {
        ++ep;
        CHECK(o["tp"] == 1);
        if (o["meets"].get<bool>())
          CHECK(o["gpus"].get<int>() == o["ep"].get<int>() * o["replicas"].get<int>());
      }
    CHECK(ep == 3);
    for (const auto& o : options("llama3-8b")) CHECK(!o.contains("ep"));
  }
}
