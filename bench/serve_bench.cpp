// Speed of a whole serving forecast: Llama-3 8B on an H100, BF16, prompt 512, every decode
// step to 2,048 output tokens, batch 8, both engines, on one core (target <= 5 ms). Prints
// microseconds per forecast for the core call and the JSON API call.
#include <chrono>
#include <cstdio>
#include <string>

#include "bench_timer.hpp"
#include "tilecast/api.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving.hpp"

using namespace tilecast;
using tilecast::bench::micros_per_call;
constexpr int kMaxCalls = 10000;

int main() {
  const GpuSpec& gpu = find_gpu("h100-sxm");
  const ModelConfig& model = find_model("llama3-8b");
  ServingRequest r;
  r.prompt = 512;
  r.output = 2048;
  r.batch = 8;
  r.dtype = DataType::bf16;
  double sink = 0;
  bool met = true;
  std::printf("Llama-3 8B on %s, bf16, prompt 512, output 2048, batch 8\n", gpu.name.c_str());
  for (Engine e : {Engine::fused, Engine::eager}) {
    r.engine = e;
    const double us =
        micros_per_call([&] { sink += forecast_serving(gpu, model, r).total_ms; }, kMaxCalls);
    std::printf("  forecast_serving, %-5s engine          %10.1f us per forecast\n",
                std::string(engine_name(e)).c_str(), us);
    met = met && us <= 5000;
  }
  const std::string req =
      R"({"gpu":"h100-sxm","model":"llama3-8b","prompt":512,"output":2048,"batch":8,"precision":"bf16"})";
  const double api_us =
      micros_per_call([&] { sink += double(api::forecast_serving(req).size()); }, kMaxCalls);
  std::printf("  api::forecast_serving (JSON, fused)     %10.1f us per forecast\n", api_us);
  met = met && api_us <= 5000;
  std::printf("  target <= 5000 us: %s\n", met ? "met" : "NOT met");
  return sink > 0 ? 0 : 1;
}
