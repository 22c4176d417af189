// What a serving simulation's counted work costs (forecast/work_budget.hpp): for simulations of
// each kind the budget weighs differently (decode stretches, small and large steps, preemption,
// sliding windows), the replay steps the work meter counted and the native time they took, as
// nanoseconds per replay step. The budget (kMaxReplaySteps) is meant to stop a request near
// 0.25 s natively (about 60 ns a step, docs/fuzzing.md): a kind far above 60 ns per step runs
// longer than the budget intends, one far below is refused (or loses its band) early.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#include "forecast/work_budget.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;

namespace {

struct Kind {
  const char* what;
  const char* gpu;
  const char* model;
  DataType dtype;
  int tp;
  std::int64_t prompt, output, requests;
  double qps;  // 0: a closed loop of `clients`
  std::int64_t clients;
  BatchLimits limits = BatchLimits::fixed;
};

}  // namespace

int main() {
  const std::vector<Kind> kinds = {
      {"stretches: Llama-3 8B, 20 req/s", "h100-sxm", "llama3-8b", DataType::bf16, 1, 512, 256,
       10000, 20, 0},
      {"small steps: Llama-3 8B, 3 req/s", "h100-sxm", "llama3-8b", DataType::bf16, 1, 128, 256,
       20000, 3, 0},
      {"one sequence a step: 1 client", "h100-sxm", "llama3-8b", DataType::bf16, 1, 128, 256, 4000,
       0, 1},
      {"sliding windows: gpt-oss-120b, 1,024 clients", "b200", "gpt-oss-120b", DataType::bf16, 8,
       128, 2048, 3000, 0, 1024},
      {"preemption: Gemma 2 9B on an L4, 256 clients", "l4", "gemma2-9b", DataType::bf16, 1, 512,
       1024, 2000, 0, 256},
      {"preemption, large batches: Llama 2 70B FP8 TP 2", "h100-sxm", "llama2-70b", DataType::fp8,
       2, 128, 2048, 2500, 0, 1024},
      {"offline, trtllm-bench limits: gpt-oss-20b", "b200", "gpt-oss-20b", DataType::bf16, 1, 1024,
       1024, 2000, 0, 2000, BatchLimits::trtllm_bench},
      {"staggered finishes: Llama 3.1 8B FP8, 1,024 clients", "h100-sxm", "llama3.1-8b",
       DataType::fp8, 1, 128, 2048, 3000, 0, 1024},
  };
  std::printf("%-50s %12s %9s %9s\n", "simulation (no band)", "replay steps", "CPU ms", "ns/step");
  double worst = 0;
  for (const Kind& k : kinds) {
    LoadRequest r;
    r.serving.prompt = k.prompt;
    r.serving.output = k.output;
    r.serving.tp = k.tp;
    r.serving.dtype = k.dtype;
    r.arrivals = k.qps > 0 ? Arrivals::poisson : Arrivals::closed_loop;
    r.qps = k.qps;
    r.concurrency = k.clients;
    r.requests = k.requests;
    r.batch_limits = k.limits;
    r.band = false;
    const GpuSpec& gpu = find_gpu(k.gpu);
    const ModelConfig& model = find_model(k.model);
    simulate_serving(gpu, model, r);  // the step shapes' kernels forecast, the weights loaded
    double best_cpu_s = 1e9, work = 0;
    for (int pass = 0; pass < 3; ++pass) {
      detail::reset_work_ledger();
      const std::clock_t cpu0 = std::clock();
      simulate_serving(gpu, model, r);
      best_cpu_s = std::min(best_cpu_s, double(std::clock() - cpu0) / CLOCKS_PER_SEC);
      work = detail::work_ledger().work_done;
    }
    const double ns = work > 0 ? best_cpu_s * 1e9 / work : 0;
    worst = std::max(worst, ns);
    std::printf("%-50s %12.3g %9.1f %9.1f\n", k.what, work, best_cpu_s * 1e3, ns);
  }
  std::printf("slowest %.1f ns per replay step: %.2f s at the budget of %.0e steps\n", worst,
              worst * 1e-9 * detail::kMaxReplaySteps, detail::kMaxReplaySteps);
}
