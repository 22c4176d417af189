// The roofline laws: no kernel runs faster than its compute or its memory traffic allows.
#pragma once

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

// Peak FLOP/s of the GPU for this op family (matrix units for GEMMs on AMD).
double peak_gflops(const GpuSpec& gpu, Op op);

// min(peak, intensity x bandwidth), in GFLOP/s, for `flops` over `bytes`.
double roofline_gflops(const GpuSpec& gpu, Op op, double flops, double bytes);

// The roofline's lower bound on the kernel's latency.
double roofline_latency_ms(const GpuSpec& gpu, const Kernel& k);

}  // namespace tilecast
