// One serving pass's time on one GPU from its kernel graph, with every distinct kernel
// forecast once across all the passes of a serving forecast (prefill and each decode step
// share their GEMMs' and norms' shapes).
#pragma once

#include <map>
#include <set>
#include <string>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

class StepClock {
 public:
  StepClock(const GpuSpec& gpu, Predictor predictor, Engine engine)
      : gpu_(gpu), predictor_(predictor), engine_(engine) {}

  // The forward pass's time. Eager: the host/compute timeline replay of model_forecast.cpp
  // (each kernel's learned launch cost paid on the host, showing where the GPU runs dry).
  // Fused: the kernels back to back with the launch cost hidden (CUDA graphs or a host that
  // keeps ahead), i.e. the sum of the kernels' execution times.
  double forward_ms(const OpGraph& graph);

  // Ops whose data type has no learned model on this GPU's vendor, forecast by the roofline.
  const std::set<std::string>& roofline_fallbacks() const { return fallbacks_; }

 private:
  struct Timed {
    double exec_ms = 0;    // on the GPU
    double launch_ms = 0;  // on the host
  };
  Timed timed(const GraphOp& op);

  const GpuSpec& gpu_;
  Predictor predictor_;
  Engine engine_;
  std::map<Kernel, Timed> cache_;
  std::set<std::string> fallbacks_;
};

// The roofline of a fused kernel outside the kernel vocabulary: max(FLOPs at the data type's
// tensor peak (FP32: the FP32 GEMM peak), bytes at the memory bandwidth).
double fused_roofline_ms(const GpuSpec& gpu, DataType dtype, double flops, double bytes);

}  // namespace tilecast::detail
