// Speed of a whole-model forecast: GPT-3 2.7B, training, seq 2048, batch 1, on
// one core (target <= 2 ms). Prints microseconds per forecast for the core call
// and for the full JSON API call (which also runs the roofline comparison).
#include <chrono>
#include <cstdio>
#include <string>

#include "bench_timer.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;
using tilecast::bench::micros_per_call;
constexpr int kMaxCalls = 100000;

int main() {
  const GpuSpec& gpu = find_gpu("h100-sxm");
  const ModelConfig& model = find_model("gpt3-2.7b");
  const Workload w = make_workload(Mode::training, 1, 2048);
  Predictor predictor = Predictor::tilecast;
  try {
    forecast_model(gpu, model, w, predictor);
  } catch (const Error& e) {
    std::printf("learned predictor unavailable (%s); timing the roofline\n", e.what());
    predictor = Predictor::roofline;
  }
  const std::string pname(predictor_name(predictor));
  double sink = 0;
  const double core_us = micros_per_call(
      [&] { sink += forecast_model(gpu, model, w, predictor).latency_ms; }, kMaxCalls);
  const std::string req =
      R"({"gpu":"h100-sxm","model":"gpt3-2.7b","batch":1,"seq":2048,"mode":"training","predictor":")" +
      pname + "\"}";
  const double api_us =
      micros_per_call([&] { sink += double(api::forecast_model(req).size()); }, kMaxCalls);
  std::printf("GPT-3 2.7B training, seq 2048, batch 1 on %s (%s predictor): %lld kernels\n",
              gpu.name.c_str(), pname.c_str(),
              static_cast<long long>(forecast_model(gpu, model, w, predictor).kernels));
  std::printf("  forecast_model (core)                  %10.1f us per forecast\n", core_us);
  std::printf("  api::forecast_model (JSON, + roofline) %10.1f us per forecast\n", api_us);
  std::printf("  target <= 2000 us: %s\n", api_us <= 2000 ? "met" : "NOT met");
  return sink > 0 ? 0 : 1;
}
