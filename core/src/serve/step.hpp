// One serving pass's time on one GPU from its kernel graph, with every distinct kernel
// forecast once across all the passes of a serving forecast (prefill and each decode step
// share their GEMMs' and norms' shapes) by the shared replay cache (forecast/kernel_times.hpp).
#pragma once

#include <set>
#include <string>

#include "forecast/kernel_times.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

class StepClock {
 public:
  StepClock(const GpuSpec& gpu, Predictor predictor, Engine engine)
      : times_(gpu, predictor, engine == Engine::eager ? Launch::eager : Launch::engine),
        engine_(engine) {}

  // The forward pass's time. Eager: the host/compute timeline replay of model_forecast.cpp
  // (each kernel's learned launch cost paid on the host, showing where the GPU runs dry).
  // Fused: the kernels back to back with the launch cost hidden (CUDA graphs or a host that
  // keeps ahead), i.e. the sum of the kernels' execution times.
  double forward_ms(const OpGraph& graph);
  // The fused engine's forward time; with `charged`, each forward op's share written there
  // ([section][op], its execution time times the section's repeats: forecast/operator_bounds.hpp;
  // null on the simulator's path, which needs only the sum).
  double fused_forward_ms(const OpGraph& graph,
                          std::vector<std::vector<double>>* charged = nullptr);

  // Ops whose data type has no learned model on this GPU's vendor, forecast by the roofline.
  const std::set<std::string>& roofline_fallbacks() const { return times_.roofline_fallbacks(); }
  // The GEMMs on the library's narrow-load kernels ("<op> <dims>"; forecast/kernel_times.hpp).
  std::vector<std::string> misaligned_gemms() const {
    return {times_.misaligned_gemms().begin(), times_.misaligned_gemms().end()};
  }
  // The rate the fused engine's streaming kernels read at (KernelTimes::stream_bw_gbps).
  double stream_bw_gbps() { return times_.stream_bw_gbps(); }
  // The kernels a transferred model forecast ("<model id> <type> <family>").
  std::vector<std::string> transfers_used() const {
    return {times_.transfers_used().begin(), times_.transfers_used().end()};
  }

 private:
  KernelTimes times_;
  Engine engine_;
};

}  // namespace tilecast::detail
