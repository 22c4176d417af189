// Serving pass timing: memoised kernel forecasts, the eager replay and the fused sum.
#include "serve/step.hpp"

#include <algorithm>

#include "forecast/timeline.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {

double fused_roofline_ms(const GpuSpec& gpu, DataType dtype, double flops, double bytes) {
  double peak_gflops = gpu.fp32_matrix_gflops > 0 ? gpu.fp32_matrix_gflops : gpu.fp32_gflops;
  if (dtype != DataType::fp32) {
    const double tensor = gpu.peak_tflops_of(dtype, ComputeUnit::tensor);
    const double vector = gpu.peak_tflops_of(dtype, ComputeUnit::vector);
    peak_gflops = 1000 * (tensor > 0 ? tensor : vector);
  }
  if (peak_gflops <= 0 || gpu.mem_bw_gbps <= 0)
    throw Error(gpu.name + " states no " + std::string(dtype_name(dtype)) + " peak");
  return std::max(flops / peak_gflops, bytes / gpu.mem_bw_gbps) / 1e6;
}

StepClock::Timed StepClock::timed(const GraphOp& op) {
  if (op.fused_bytes > 0)
    return {fused_roofline_ms(gpu_, op.kernel.dtype, op.fused_flops, op.fused_bytes), 0};
  if (op.fused_kernels > 0) {  // a compiled engine's fused chain: its anchor, scaled
    GraphOp anchor = op;
    anchor.fused_kernels = 0;
    Timed t = timed(anchor);
    t.exec_ms *= op.traffic_scale;
    return t;
  }
  auto it = cache_.find(op.kernel);
  if (it != cache_.end()) return it->second;
  KernelForecast k;
  try {
    k = forecast_kernel(gpu_, op.kernel, predictor_);
  } catch (const Error&) {
    if (predictor_ == Predictor::roofline) throw;
    // no learned model for this data type and family on this vendor
    k = forecast_kernel(gpu_, op.kernel, Predictor::roofline);
    fallbacks_.insert(std::string(op_name(op.kernel.op)));
  }
  const double launch = std::clamp(k.overhead_ms, 0.0, k.latency_ms);
  return cache_.emplace(op.kernel, Timed{k.latency_ms - launch, launch}).first->second;
}

double StepClock::forward_ms(const OpGraph& graph) {
  if (engine_ == Engine::fused) {
    double total = 0;
    for (const auto& s : graph.sections) {
      double section = 0;
      for (const auto& o : s.ops)
        if (o.phase == Phase::forward) section += timed(o).exec_ms;
      total += section * double(s.count);
    }
    return total;
  }
  Timeline t;
  for (const auto& s : graph.sections) {
    std::vector<Timed> ops;
    ops.reserve(s.ops.size());
    for (const auto& o : s.ops)
      if (o.phase == Phase::forward) ops.push_back(timed(o));
    for (std::int64_t r = 0; r < s.count; ++r)
      for (const Timed& k : ops) t.launch(k.launch_ms, k.exec_ms);
  }
  return t.ready_ms(Stream::compute);
}

}  // namespace tilecast::detail
