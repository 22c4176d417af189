// Speed of the megatron engine's plan search (tilecast plan --engine megatron; issue 28 asks
// >= 5,000 configurations forecast per second in the browser; this is the native figure, one
// core): Llama-3 8B on 64 H100s of DGX H100 nodes and GPT-3 175B on 1,024 A100s of DGX A100
// nodes, every tp x cp x pp x dp x virtual stages x micro-batch size x recomputation x
// sequence parallelism. Prints configurations per second, enumerated and forecast (those the
// engine accepts).
#include <cstdio>

#include "bench_timer.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;
using tilecast::bench::micros_per_call;

namespace {

double run(const char* what, const char* gpu, const char* system, const ModelConfig& model,
           int gpus, std::int64_t batch, std::int64_t seq) {
  MegatronPlanRequest q;
  q.gpus = gpus;
  q.global_batch = batch;
  q.seq = seq;
  const MegatronPlanResult r = plan_megatron(find_gpu(gpu), find_system(system), model, q);
  double sink = 0;
  const double us = micros_per_call(
      [&] { sink += double(plan_megatron(find_gpu(gpu), find_system(system), model, q).fitting); },
      3);
  const long long forecast = r.considered - r.does_not_divide;
  std::printf(
      "%-28s %7lld configurations (%lld forecast, %lld fit) in %8.1f ms: %9.0f enumerated/s, "
      "%8.0f forecast/s; best %.1f ms\n",
      what, r.considered, forecast, r.fitting, us / 1000, double(r.considered) / (us / 1e6),
      double(forecast) / (us / 1e6), r.by_step.empty() ? 0.0 : r.by_step[0].step_ms);
  return sink;
}

}  // namespace

int main() {
  double sink = 0;
  sink += run("llama3-8b, 64 H100", "h100-sxm", "dgx-h100", find_model("llama3-8b"), 64, 256, 4096);
  sink += run("GPT-3 175B, 1024 A100", "a100-80gb-sxm", "dgx-a100",
              model_from_sizes(R"({"hidden": 12288, "layers": 96, "heads": 96, "vocab": 51200,
                                   "seq": 2048, "mlp": "gelu"})",
                               "GPT-3 175B"),
              1024, 1536, 2048);
  return sink > 0 ? 0 : 1;
}
