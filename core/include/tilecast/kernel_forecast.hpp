// Latency of one kernel on one GPU: the learned tile/wave model (NeuSight
// method) or the plain roofline baseline. Never below the roofline bound.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

enum class Predictor { tilecast, roofline };

Predictor parse_predictor(std::string_view name);  // "tilecast" | "roofline"
std::string_view predictor_name(Predictor p);

struct KernelForecast {
  double latency_ms = 0;
  double roofline_ms = 0;  // the roofline lower bound
  double flops = 0;
  double bytes = 0;
  std::int64_t tiles = 0;
  std::int64_t waves = 0;
  double utilization = 1;  // fraction of roofline throughput achieved
  std::string tile;        // tile the kernel was split into, e.g. "128x64"
  double overhead_ms = 0;  // learned fixed cost per launch, included in latency_ms
  // The 80% band (tilecast/error_bands.hpp) of the learned forecast; both 0 when there is none
  // (the roofline predictor, or no bands built in).
  double band_low_ms = 0;
  double band_high_ms = 0;
  // The library's narrow-load floor for a misaligned half-precision GEMM set latency_ms
  // (kernel/library_profile.hpp): what its caveat says, only where it did.
  bool misaligned_floor = false;
};

// How a kernel is launched, which decides the host's cost per launch: by PyTorch eager, one
// Python call per kernel (the dispatch cost NeuSight's per-call timings hold, and the FP32
// models learned), or by an engine (a CUDA graph or a C++ runtime: the kernel alone, as vidur's
// CUDA-event timings hold it). A model timed on kernels alone (its manifest's `timing`) takes,
// under eager launches, the per-launch cost its vendor's per-call FP32 model gives the same
// kernel in FP32 (its fixed cost, or its forecast of the op's smallest kernel where its net
// learned the call as a low utilization), where that is higher (docs/fp16-model.md, "Launch
// cost", "Launch cost of a layer norm").
enum class Launch { eager, engine };

KernelForecast forecast_kernel(const GpuSpec& gpu, const Kernel& kernel,
                               Predictor predictor = Predictor::tilecast,
                               Launch launch = Launch::eager);

}  // namespace tilecast
