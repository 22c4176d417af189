// Speed of the megatron engine's step forecast (issue 28: a 1,000-GPU step <= 5 ms native):
// Llama-2 70B on 1,024 H100s of DGX H100 nodes (tp 8, pp 8, dp 16, interleaved, sequence
// parallel, FlashAttention) and GPT 530B on 2,240 A100s (Korthikanti et al.'s configuration),
// each forecast from scratch (no kernel cache kept between calls), one core.
#include <algorithm>
#include <cstdio>

#include "bench_timer.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;
using tilecast::bench::micros_per_call;

namespace {

double time_step(const char* what, const GpuSpec& gpu, SystemSpec system, const ModelConfig& model,
                 std::int64_t batch, std::int64_t seq, const MegatronConfig& c) {
  Workload w = make_workload(Mode::training, batch, seq);
  w.dtype = DataType::bf16;
  system.max_nodes = std::max<int>(system.max_nodes, int(c.gpus() / system.gpus_per_node) + 1);
  double sink = 0;
  const double us = micros_per_call(
      [&] { sink += forecast_megatron(gpu, system, model, w, c, Predictor::tilecast).step_ms; },
      200);
  const MegatronForecast f = forecast_megatron(gpu, system, model, w, c, Predictor::tilecast);
  std::printf("%-34s %5lld GPUs: step %10.1f ms, MFU %4.1f%%, forecast in %7.3f ms\n", what,
              c.gpus(), f.step_ms, 100 * f.mfu, us / 1000);
  return sink;
}

}  // namespace

int main() {
  double sink = 0;
  MegatronConfig c;
  c.tp = 8;
  c.pp = 8;
  c.dp = 16;
  c.microbatches = 32;
  c.virtual_stages = 5;
  c.sequence_parallel = true;
  sink += time_step("llama2-70b, H100, 1024 GPUs", find_gpu("h100-sxm"), find_system("dgx-h100"),
                    find_model("llama2-70b"), 16 * 32, 4096, c);
  c = MegatronConfig{};
  c.tp = 8;
  c.pp = 35;
  c.dp = 8;
  c.microbatches = 280;
  c.virtual_stages = 3;
  c.sequence_parallel = true;
  c.recompute = Recompute::selective;
  c.attention = AttentionKernel::fused_softmax;
  c.distributed_optimizer = false;
  sink += time_step("GPT 530B (Korthikanti), A100, 2240", find_gpu("a100-80gb-sxm"),
                    find_system("dgx-a100"),
                    parse_model_config(R"({"architectures":["GPT2LMHeadModel"],"model_type":"gpt2",
                  "n_embd":20480,"n_layer":105,"n_head":128,"vocab_size":51200,
                  "n_positions":2048})",
                                       "GPT 530B"),
                    2240, 2048, c);
  return sink > 0 ? 0 : 1;
}
