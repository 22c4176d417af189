// Speed of one learned kernel prediction (target: <= 2 us native). Prints ns/prediction.
#include <chrono>
#include <cstdio>
#include <vector>

#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"

int main() {
  using namespace tilecast;
  const GpuSpec& gpu = find_gpu("NVIDIA A100 80GB PCIe");
  const std::vector<Kernel> kernels = {parse_kernel("linear", "1,2048,768,3072"),
                                       parse_kernel("bmm", "96,512,64,512"),
                                       parse_kernel("add", "2048,768"),
                                       parse_kernel("gelu", "2048,3072"),
                                       parse_kernel("softmax", "24576,512"),
                                       parse_kernel("ln", "2048,768"),
                                       parse_kernel("linear", "1,65536,1024,50272"),
                                       parse_kernel("bmm", "65536,64,64,64")};
  double sink = 0;
  for (const Kernel& k : kernels) sink += forecast_kernel(gpu, k).latency_ms;  // loads the model
  const int rounds = 20000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r)
    for (const Kernel& k : kernels) sink += forecast_kernel(gpu, k).latency_ms;
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
      (double(rounds) * double(kernels.size()));
  std::printf(
      "kernel prediction: %.0f ns/prediction (%zu kernel shapes x %d rounds; target <= 2000 ns)\n",
      ns, kernels.size(), rounds);
  return sink > 0 ? 0 : 1;
}
