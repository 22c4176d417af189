// The 80% band of a serving simulation (docs/serving-load.md, "80% band"): the same requests run
// again with every step's time at the whole-model band's multiples, each figure's band the least
// and the most of the three runs; none for the roofline predictor, in a capacity plan's
// simulations, or past the work budget, each said in the caveats. A capacity plan's band of its
// best option's replicas: the search again at the band's edges.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/fixed_costs.hpp"
#include "support/load_requests.hpp"
#include "tilecast/api.hpp"
#include "tilecast/capacity.hpp"
#include "tilecast/error_bands.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;
using test::poisson;

namespace {

bool holds(const Range& r, double x) { return r.low <= x && x <= r.high; }
bool holds(const PercentileRanges& r, const LatencyPercentiles& p) {
  return holds(r.p50, p.p50) && holds(r.p90, p.p90) && holds(r.p99, p.p99) && holds(r.mean, p.mean);
}
bool within(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

bool says(const LoadForecast& f, const std::string& opening) {
  return std::any_of(f.caveats.begin(), f.caveats.end(),
                     [&](const std::string& c) { return c.rfind(opening, 0) == 0; });
}

}  // namespace

TEST_SUITE("serving_load_band") {
  TEST_CASE("the band holds every figure and runs its steps at the whole-model band's multiples") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    const ErrorBand* step = forecast_model_band(Predictor::tilecast, Mode::inference);
    REQUIRE(step != nullptr);
    REQUIRE(step->low < 1);
    REQUIRE(step->high > 1);
    const LoadForecast f = simulate_serving(gpu, model, poisson(4, 200, 512, 128));
    REQUIRE(f.band.has_value());
    CHECK(f.band->step.low == step->low);
    CHECK(f.band->step.high == step->high);
    CHECK(holds(f.band->ttft_ms, f.ttft_ms));
    CHECK(holds(f.band->tpot_ms, f.tpot_ms));
    CHECK(holds(f.band->e2e_ms, f.e2e_ms));
    CHECK(holds(f.band->output_tokens_per_s, f.output_tokens_per_s));
    CHECK(holds(f.band->requests_per_s, f.requests_per_s));
    // slower steps, longer latencies: the band is not the central run three times
    CHECK(f.band->tpot_ms.p50.low < f.tpot_ms.p50);
    CHECK(f.band->tpot_ms.p50.high > f.tpot_ms.p50);
    CHECK(f.band->e2e_ms.p99.high > f.e2e_ms.p99);
    CHECK(says(f, "80% band: "));
    CHECK(!says(f, "No 80% band"));
  }

  TEST_CASE("one request alone: its decode's band is the step multiples exactly") {
    // no queue: every decode step is the request's own, so its TPOT scales with the steps
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const LoadForecast f = simulate_serving(gpu, find_model("llama2-7b"), poisson(1, 1, 512, 64));
    REQUIRE(f.band.has_value());
    CHECK(within(f.band->tpot_ms.p50.low, f.tpot_ms.p50 * f.band->step.low, 1e-9));
    CHECK(within(f.band->tpot_ms.p50.high, f.tpot_ms.p50 * f.band->step.high, 1e-9));
  }

  TEST_CASE("near saturation the queue moves with the steps: TTFT's band is wider than theirs") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama2-7b");
    // a rate the central run serves and the slow run barely does
    const LoadForecast f = simulate_serving(gpu, model, poisson(9, 600, 512, 256));
    REQUIRE(f.band.has_value());
    CHECK(f.band->ttft_ms.p99.high / f.ttft_ms.p99 > f.band->step.high);
    // throughput follows the arrivals while the GPU keeps up: a narrow band
    CHECK(f.band->output_tokens_per_s.high / f.band->output_tokens_per_s.low <
          f.band->step.high / f.band->step.low);
  }

  TEST_CASE("no band: the roofline predictor, a capacity plan's candidates, past the budget") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    LoadRequest roofline = poisson(4, 50, 512, 64);
    roofline.serving.predictor = Predictor::roofline;
    const LoadForecast r = simulate_serving(gpu, model, roofline);
    CHECK(!r.band.has_value());
    CHECK(says(r, "No 80% band: the roofline predictor"));

    LoadRequest unasked = poisson(4, 50, 512, 64);
    unasked.band = false;
    const LoadForecast u = simulate_serving(gpu, model, unasked);
    CHECK(!u.band.has_value());
    // its caller (a capacity plan) says its own band: no line on one either way, the checks kept
    CHECK(!says(u, "80% band"));
    CHECK(!says(u, "No 80% band"));
    CHECK(says(u, detail::serving_fixed_costs().checks_loaded));
    // the central run is the same with or without its band
    const LoadForecast b = simulate_serving(gpu, model, poisson(4, 50, 512, 64));
    CHECK(b.band.has_value());
    CHECK(b.ttft_ms.p99 == u.ttft_ms.p99);
    CHECK(b.output_tokens_per_s == u.output_tokens_per_s);

    // an offline run of 75,000 short requests under TensorRT-LLM's admission (every sequence-step
    // counted) fits the work budget once, not three times
    LoadRequest offline = test::closed_loop(75000, 75000, 128, 128);
    offline.serving.dtype = DataType::fp8;
    offline.serving.kv_cache = DataType::fp8;
    offline.scheduler = Scheduler::no_evict;
    offline.batch_limits = BatchLimits::trtllm_bench;
    const LoadForecast o = simulate_serving(gpu, find_model("llama3.1-8b"), offline);
    CHECK(!o.band.has_value());
    CHECK(says(o, "No 80% band: simulating the requests twice more"));
    CHECK(o.output_tokens_per_s > 0);
  }

  TEST_CASE("a capacity plan's best option: the fewest replicas at the band's fast and slow edge") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    CapacityRequest r;
    r.load = poisson(1, 300, 512, 128);
    r.qps = 40;
    r.slo_ttft_ms = 400;
    r.slo_tpot_ms = 30;
    r.max_gpus = 16;
    const CapacityPlan p = plan_capacity({gpu}, model, r);
    REQUIRE(!p.options.empty());
    const CapacityOption& best = p.options.front();
    REQUIRE(best.meets);
    REQUIRE(best.replicas_band.has_value());
    const auto [fast, slow] = *best.replicas_band;
    CHECK(fast <= best.replicas);
    CHECK(slow >= best.replicas);
    CHECK(fast < slow);  // this service's band spans counts
    for (std::size_t i = 1; i < p.options.size(); ++i) CHECK(!p.options[i].replicas_band);
    // each edge's count meets with every step at its multiple, one fewer does not
    const ErrorBand* band = forecast_model_band(Predictor::tilecast, Mode::inference);
    auto meets = [&](int replicas, double multiple) {
      LoadRequest lr = r.load;
      lr.serving.tp = best.tp;
      lr.qps = r.qps / replicas;
      lr.step_multiple = multiple;
      const LoadForecast f = simulate_serving(gpu, model, lr);
      return f.ttft_ms.p99 <= r.slo_ttft_ms && f.tpot_ms.p99 <= r.slo_tpot_ms;
    };
    CHECK(meets(fast, band->low));
    if (fast > 1) CHECK(!meets(fast - 1, band->low));
    CHECK(meets(slow, band->high));
    CHECK(!meets(slow - 1, band->high));
    CHECK(std::any_of(p.caveats.begin(), p.caveats.end(), [](const std::string& c) {
      return c.rfind("80% band of the best option's replicas: ", 0) == 0;
    }));
    // the roofline predictor's plan: a bound, no band
    r.load.serving.predictor = Predictor::roofline;
    const CapacityPlan q = plan_capacity({gpu}, model, r);
    REQUIRE(!q.options.empty());
    CHECK(!q.options.front().replicas_band);
    CHECK(std::any_of(q.caveats.begin(), q.caveats.end(), [](const std::string& c) {
      return c.rfind("No 80% band of the best option's replicas: the roofline", 0) == 0;
    }));
  }

  TEST_CASE("the JSON answer: band null or each range ordered, the same twice") {
    const std::string req =
        R"({"gpu": "h100-sxm", "model": "llama3-8b", "prompt": 512, "output": 128, "qps": 4,
            "requests": 200, "seed": 0})";
    const std::string a = api::forecast_serving(req), b = api::forecast_serving(req);
    CHECK(a == b);
    const auto j = nlohmann::json::parse(a);
    REQUIRE(j.contains("band"));
    REQUIRE(j["band"].is_object());
    for (const char* what : {"ttft_ms", "tpot_ms", "e2e_ms"})
      for (const char* p : {"p50", "p90", "p99", "mean"}) {
        const auto& r = j["band"][what][p];
        CHECK(r[0].get<double>() <= j[what][p].get<double>());
        CHECK(j[what][p].get<double>() <= r[1].get<double>());
      }
    const auto r = nlohmann::json::parse(api::forecast_serving(
        R"({"gpu": "h100-sxm", "model": "llama3-8b", "prompt": 512, "output": 128, "qps": 4,
            "requests": 20, "predictor": "roofline"})"));
    CHECK(r["band"].is_null());
  }
}
