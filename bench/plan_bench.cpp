// Speed of the plan search (tilecast plan): GPT-2 Large and Llama-3 8B on a DGX A100, global
// batch 32, every dp x tp x pp x micro-batch x ZeRO x recomputation on 1-8 GPUs, one core.
// Prints configurations per second (enumerated, and forecast: those that divide). Issue 11
// item 7 asks >= 10,000 a second in the browser; this is the native figure.
#include <cstdio>

#include "bench_timer.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;
using tilecast::bench::micros_per_call;

int main() {
  const SystemSpec& system = find_system("dgx-a100");
  const GpuSpec& gpu = find_gpu(system.gpu);
  double sink = 0;
  for (const char* m : {"gpt2-large", "llama3-8b"}) {
    PlanRequest q;
    q.global_batch = 32;
    q.seq = 1024;
    const ModelConfig& model = find_model(m);
    const PlanResult r = plan_parallel(gpu, system, model, q);
    const double us = micros_per_call(
        [&] { sink += double(plan_parallel(gpu, system, model, q).by_step.size()); }, 20);
    const int forecast = r.considered - r.does_not_divide;
    std::printf(
        "%-12s %6d configurations (%d forecast, %d fit) in %8.1f ms: %9.0f enumerated/s, "
        "%8.0f forecast/s\n",
        m, r.considered, forecast, int(r.by_step.size()), us / 1000, r.considered / (us / 1e6),
        forecast / (us / 1e6));
  }
  return sink > 0 ? 0 : 1;
}
