// The replay cache: a kernel's forecast split into GPU and host time, with the roofline where
// no learned model covers the kernel.
#include "forecast/kernel_times.hpp"

#include <algorithm>

#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "kernel/flash_attention.hpp"
#include "kernel/library_profile.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast::detail {

double fused_peak_gflops(const GpuSpec& gpu, DataType dtype) {
  double peak_gflops = gpu.fp32_matrix_gflops > 0 ? gpu.fp32_matrix_gflops : gpu.fp32_gflops;
  if (dtype != DataType::fp32) {
    const double tensor = gpu.peak_tflops_of(dtype, ComputeUnit::tensor);
    const double vector = gpu.peak_tflops_of(dtype, ComputeUnit::vector);
    peak_gflops = 1000 * (tensor > 0 ? tensor : vector);
  }
  if (peak_gflops <= 0 || gpu.mem_bw_gbps <= 0)
    throw Error(gpu.name + " states no " + std::string(dtype_name(dtype)) + " peak");
  return peak_gflops;
}

namespace {

double roofline_ms(double flops, double bytes, double peak_gflops, double mem_bw_gbps) {
  return std::max(flops / peak_gflops, bytes / mem_bw_gbps) / 1e6;
}

// A fused chain's time over its anchor's (GraphOp::fused_kernels): the chain's traffic over the
// anchor's where the chain stays memory-bound (a compiled chain of vector kernels, a cache write,
// a decode GEMM still bound by its packed weights); where the chain's FLOPs bind instead (a GEMM
// whose packed weights made it compute-bound: serve/quantize.cpp), its compute roofline over the
// anchor's roofline, so the forecast keeps the anchor's share of its roofline and never falls
// under the chain's.
double chain_scale(const GpuSpec& gpu, const GraphOp& op) {
  const double peak = peak_gflops(gpu, op.kernel), bytes = kernel_bytes(op.kernel);
  if (!(peak > 0)) return op.traffic_scale;
  const double compute_ms = op.chain_flops / peak;
  if (!(compute_ms > bytes * op.traffic_scale / gpu.mem_bw_gbps)) return op.traffic_scale;
  return compute_ms / std::max(kernel_flops(op.kernel) / peak, bytes / gpu.mem_bw_gbps);
}

}  // namespace

double fused_roofline_ms(const GpuSpec& gpu, DataType dtype, double flops, double bytes) {
  return roofline_ms(flops, bytes, fused_peak_gflops(gpu, dtype), gpu.mem_bw_gbps);
}

double streaming_bw_gbps(const GpuSpec& gpu, Predictor predictor) {
  if (predictor == Predictor::roofline) return gpu.mem_bw_gbps;
  const std::int64_t dims[4] = {1, 1, 8192, 8192};  // B, M, N, K
  const Kernel gemv = make_kernel(Op::linear, dims, 4, DataType::fp16);
  if (!(gpu.peak_tflops_of(DataType::fp16, ComputeUnit::tensor) > 0) ||
      !has_learned_model(gpu, gemv))
    return gpu.mem_bw_gbps;
  const KernelForecast f = forecast_kernel(gpu, gemv, predictor, Launch::engine);
  const double stream_ms = f.latency_ms - f.overhead_ms;
  const double bound_ms = f.bytes / (gpu.mem_bw_gbps * 1e6);
  if (!(stream_ms > 0) || !(bound_ms > 0)) return gpu.mem_bw_gbps;
  return gpu.mem_bw_gbps * std::min(1.0, bound_ms / stream_ms);
}

FusedAttention::FusedAttention(const GpuSpec& gpu, DataType dtype, Predictor predictor,
                               double stream_bw_gbps)
    : peak_gflops_(fused_peak_gflops(gpu, dtype)), mem_bw_gbps_(stream_bw_gbps) {
  if (predictor == Predictor::roofline) return;
  if (const auto f = flash_forward(gpu, dtype)) {
    max_efficiency_ = f->max_efficiency;
    s_half_ = f->s_half;
  }
}

double FusedAttention::ms(double flops, double bytes, double keys) const {
  const double streaming_ms = roofline_ms(flops, bytes, peak_gflops_, mem_bw_gbps_);
  if (!(max_efficiency_ > 0 && keys > 0)) return streaming_ms;
  const double efficiency = flash_efficiency(max_efficiency_, keys, s_half_);
  return std::max(streaming_ms, flops / (peak_gflops_ * efficiency) / 1e6);
}

const TimedKernel& KernelTimes::kernel(const Kernel& k) {
  auto it = cache_.find(k);
  if (it != cache_.end()) return it->second;
  Predictor p = predictor_;
  if (p != Predictor::roofline && !has_learned_model(gpu_, k)) {
    p = Predictor::roofline;
    fallbacks_.insert(std::string(op_name(k.op)));
  } else if (p != Predictor::roofline) {
    if (std::string key = transfer_use_key(gpu_, k); !key.empty())
      transfers_.insert(std::move(key));
  }
  const KernelForecast f = forecast_kernel(gpu_, k, p, launch_);
  if (f.misaligned_floor) misaligned_.insert(kernel_label(k));
  const double launch = std::clamp(f.overhead_ms, 0.0, f.latency_ms);
  return cache_.emplace(k, TimedKernel{f.latency_ms - launch, launch}).first->second;
}

double KernelTimes::stream_bw_gbps() {
  if (!(stream_bw_gbps_ > 0)) stream_bw_gbps_ = streaming_bw_gbps(gpu_, predictor_);
  return stream_bw_gbps_;
}

TimedKernel KernelTimes::op(const GraphOp& op) {
  if (op.fused_bytes > 0) {
    const DataType t = op.kernel.dtype;
    const FusedAttention& a =
        attention_.try_emplace(t, gpu_, t, predictor_, stream_bw_gbps()).first->second;
    return {a.ms(op.fused_flops, op.fused_bytes, op.fused_keys), 0};
  }
  TimedKernel t = kernel(op.kernel);
  if (op.fused_kernels > 0) t.exec_ms *= chain_scale(gpu_, op);
  t.host_waits = op.host_sync;
  return t;
}

}  // namespace tilecast::detail
