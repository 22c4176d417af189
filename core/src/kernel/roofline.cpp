#include "tilecast/roofline.hpp"

#include <algorithm>
#include <string>

#include "kernel/family.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

// "fp16, bf16" or "none listed"
std::string tensor_types(const GpuSpec& gpu) {
  std::string s;
  for (int t = 0; t < kDataTypeCount; ++t)
    if (gpu.peak_tflops_of(DataType(t), ComputeUnit::tensor) > 0)
      s += (s.empty() ? "" : ", ") + std::string(dtype_name(DataType(t)));
  return s.empty() ? "none listed" : s;
}

}  // namespace

double peak_gflops(const GpuSpec& gpu, const Kernel& k) {
  const bool tensor = family_of(k.op).unit == ComputeUnit::tensor;
  if (k.dtype == DataType::fp32) return tensor ? gpu.fp32_matrix_gflops : gpu.fp32_gflops;
  if (tensor) {
    const double tflops = gpu.peak_tflops_of(k.dtype, ComputeUnit::tensor);
    if (!(tflops > 0))
      throw Error("GPU '" + gpu.name + "' has no " + std::string(dtype_name(k.dtype)) +
                  " tensor-core peak in its spec (tensor-core data types: " + tensor_types(gpu) +
                  "); add it to peak_tflops, or forecast another precision");
    return tflops * 1000.0;
  }
  const double tflops = gpu.peak_tflops_of(k.dtype, ComputeUnit::vector);
  return tflops > 0 ? tflops * 1000.0 : gpu.fp32_gflops;
}

double peak_gflops(const GpuSpec& gpu, Op op) {
  Kernel k;
  k.op = op;
  return peak_gflops(gpu, k);
}

double roofline_gflops(const GpuSpec& gpu, Op op, double flops, double bytes) {
  const double intensity = bytes > 0 ? flops / bytes : 0;  // FLOP per byte
  return std::min(peak_gflops(gpu, op), intensity * gpu.mem_bw_gbps);
}

double roofline_latency_ms(const GpuSpec& gpu, const Kernel& k) {
  return roofline_latency_ms(gpu, k, kernel_flops(k), kernel_bytes(k));
}

namespace {
RooflineTerms terms_of(const GpuSpec& gpu, const Kernel& k, double flops, double bytes) {
  return {flops / (peak_gflops(gpu, k) * 1e6), bytes / (gpu.mem_bw_gbps * 1e6)};
}
}  // namespace

RooflineTerms roofline_terms(const GpuSpec& gpu, const Kernel& k) {
  return terms_of(gpu, k, kernel_flops(k), kernel_bytes(k));
}

double roofline_latency_ms(const GpuSpec& gpu, const Kernel& k, double flops, double bytes) {
  const RooflineTerms t = terms_of(gpu, k, flops, bytes);
  return std::max(t.compute_ms, t.memory_ms);
}

}  // namespace tilecast
