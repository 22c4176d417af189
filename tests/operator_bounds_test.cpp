// The per-operator bound analysis of a forecast (the response's `operators`): rows add up to the
// step, each row's intensity, ridge point and bound follow the roofline, and the well-known cases
// come out as they should (a BF16 prefill's projections compute-bound, decode's memory-bound).
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tilecast/api.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

nlohmann::json forecast(const std::string& mode, long long batch, long long seq,
                        const std::string& predictor = "tilecast") {
  nlohmann::json r;
  r["gpu"] = "h100-sxm";
  r["model"] = "llama3-8b";
  r["batch"] = batch;
  r["seq"] = seq;
  r["mode"] = mode;
  r["precision"] = "bf16";
  r["predictor"] = predictor;
  return nlohmann::json::parse(api::forecast_model(r.dump()));
}

}  // namespace

TEST_SUITE("operator_bounds") {
  TEST_CASE("the rows add up to the step and follow the roofline") {
    for (const std::string predictor : {"tilecast", "roofline"}) {
      const nlohmann::json f = forecast("inference", 8, 2048, predictor);
      const GpuSpec& gpu = find_gpu("h100-sxm");
      const double tensor_ridge =
          1000 * gpu.peak_tflops_of(DataType::bf16, ComputeUnit::tensor) / gpu.mem_bw_gbps;
      const double latency = f["latency_ms"].get<double>();
      double time = 0;
      std::set<std::string> bounds;
      REQUIRE(f["operators"].size() > 5);
      for (const auto& o : f["operators"]) {
        const double flops = o["flops"], bytes = o["bytes"], ridge = o["ridge_flop_per_byte"];
        time += o["time_ms"].get<double>();
        CHECK(o["share"].get<double>() == doctest::Approx(o["time_ms"].get<double>() / latency));
        CHECK(o["intensity_flop_per_byte"].get<double>() == (bytes > 0 ? flops / bytes : 0));
        CHECK(o["bound"] == (flops > 0 && flops >= ridge * bytes ? "compute" : "memory"));
        CHECK(o["launches"].get<long long>() >= 1);
        bounds.insert(o["bound"].get<std::string>());
        if (o["kernel"] == "linear") {
          CHECK(ridge == doctest::Approx(tensor_ridge));
          CHECK(o["bound"] == "compute");  // 16k tokens through each projection
        }
        if (o["kind"] == "norm") CHECK(o["bound"] == "memory");
        if (o["kernel"] == "copy") CHECK(flops == 0);
      }
      CHECK(time == doctest::Approx(latency).epsilon(1e-12));
      CHECK(bounds == std::set<std::string>{"compute", "memory"});
    }
  }

  TEST_CASE("decode reads each weight for a few tokens: its projections are memory-bound") {
    const nlohmann::json f = forecast("decode", 1, 1024);
    int linears = 0;
    for (const auto& o : f["operators"])
      if (o["kernel"] == "linear") {
        ++linears;
        CHECK(o["bound"] == "memory");
        CHECK(o["intensity_flop_per_byte"].get<double>() < 2);
      }
    CHECK(linears >= 7);  // q, k, v, o, gate, up, down (and the head)
  }

  TEST_CASE("a training step lists forward, backward and accumulation rows") {
    const nlohmann::json f = forecast("training", 1, 512);
    std::set<std::string> phases;
    for (const auto& o : f["operators"]) phases.insert(o["phase"].get<std::string>());
    CHECK(phases == std::set<std::string>{"forward", "backward", "accumulate"});
  }
}
