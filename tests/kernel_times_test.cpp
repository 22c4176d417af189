// The one replay cache (forecast/kernel_times.hpp): a kernel forecast once and split into GPU
// and host time; the roofline, named for the caveats, wherever no learned model covers a
// kernel's vendor, data type and family, on every replay path (single GPU, serving, parallel).
#include "forecast/kernel_times.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

Kernel linear(DataType t) {
  Kernel k;
  k.op = Op::linear;
  k.dims = {1, 2048, 4096, 4096};
  k.dtype = t;
  return k;
}

bool names(const std::vector<std::string>& caveats, const std::string& text) {
  for (const auto& c : caveats)
    if (c.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_SUITE("kernel_times") {
  TEST_CASE("a covered kernel: its learned forecast, the launch cost on the host, once") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const Kernel k = linear(DataType::bf16);
    REQUIRE(has_learned_model(h100, k));
    detail::KernelTimes times(h100, Predictor::tilecast);
    const KernelForecast f = forecast_kernel(h100, k);
    const detail::TimedKernel& t = times.kernel(k);
    CHECK(t.launch_ms == doctest::Approx(std::clamp(f.overhead_ms, 0.0, f.latency_ms)));
    CHECK(t.exec_ms + t.launch_ms == doctest::Approx(f.latency_ms));
    CHECK(&times.kernel(k) == &t);  // cached
    CHECK(times.roofline_fallbacks().empty());
  }

  TEST_CASE("no learned model for the vendor and type: the roofline, recorded") {
    const GpuSpec& mi300x = find_gpu("mi300x");
    const Kernel k = linear(DataType::bf16);
    CHECK_FALSE(has_learned_model(mi300x, k));
    CHECK(has_learned_model(mi300x, linear(DataType::fp32)));
    detail::KernelTimes times(mi300x, Predictor::tilecast);
    const detail::TimedKernel t = times.kernel(k);
    CHECK(t.exec_ms + t.launch_ms == forecast_kernel(mi300x, k, Predictor::roofline).latency_ms);
    REQUIRE(times.roofline_fallbacks().size() == 1);
    CHECK(*times.roofline_fallbacks().begin() == "linear");
    // the roofline predictor never falls back
    detail::KernelTimes roof(mi300x, Predictor::roofline);
    roof.kernel(k);
    CHECK(roof.roofline_fallbacks().empty());
  }

  TEST_CASE("a learned set without the family: the roofline for that family only") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    Kernel softmax;
    softmax.op = Op::softmax;
    softmax.dims = {4096, 2048, 0, 0};
    softmax.dtype = DataType::fp16;
    CHECK_FALSE(has_learned_model(h100, softmax));  // the FP16 nets have no softmax
    softmax.dtype = DataType::fp32;
    CHECK(has_learned_model(h100, softmax));
  }

  TEST_CASE("parallel training falls back as the single-GPU step does, and says so") {
    const GpuSpec& mi300x = find_gpu("mi300x");
    Workload w = make_workload(Mode::training, 8, 512);
    w.dtype = DataType::bf16;
    const ModelConfig m = find_model("gpt2-large");
    ParallelConfig c;
    c.dp = 2;
    c.tp = 2;
    const ParallelForecast p =
        forecast_parallel(mi300x, find_system("mi300x-8x"), m, w, c, Predictor::tilecast);
    CHECK(p.step_ms > 0);
    CHECK(p.roofline_fallbacks == std::vector<std::string>{"bmm", "linear"});
    const ModelForecast one = forecast_model(mi300x, m, w, Predictor::tilecast);
    CHECK(one.roofline_fallbacks == p.roofline_fallbacks);
    const auto j = nlohmann::json::parse(parallel_forecast_to_json(mi300x, m, p));
    CHECK(names(j["caveats"].get<std::vector<std::string>>(),
                "No learned bf16 model covers bmm, linear"));
  }
}
