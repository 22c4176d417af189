#include "tilecast/roofline.hpp"

#include <algorithm>

namespace tilecast {

double peak_gflops(const GpuSpec& gpu, Op op) {
  return is_gemm(op) ? gpu.fp32_matrix_gflops : gpu.fp32_gflops;
}

double roofline_gflops(const GpuSpec& gpu, Op op, double flops, double bytes) {
  const double intensity = bytes > 0 ? flops / bytes : 0;  // FLOP per byte
  return std::min(peak_gflops(gpu, op), intensity * gpu.mem_bw_gbps);
}

double roofline_latency_ms(const GpuSpec& gpu, const Kernel& k) {
  const double compute_ms = kernel_flops(k) / (peak_gflops(gpu, k.op) * 1e6);
  const double memory_ms = kernel_bytes(k) / (gpu.mem_bw_gbps * 1e6);
  return std::max(compute_ms, memory_ms);
}

}  // namespace tilecast
