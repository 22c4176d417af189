// The roofline laws: no kernel runs faster than its compute or its memory traffic allows.
#pragma once

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

// Peak GFLOP/s (int8: GOP/s) of the GPU for this kernel's family and data type:
// - FP32: GEMMs fp32_matrix_gflops (AMD matrix cores; = fp32_gflops on NVIDIA), other ops
//   fp32_gflops;
// - other data types: GEMMs the tensor-core peak (an error naming the GPU and the data types
//   it lists when the datasheet gives none), other ops the vector peak of the data type.
//   Datasheets rarely give one (they list tensor-core figures); where none is given the FP32
//   vector peak stands in, since vector units then run the op at FP32 speed.
double peak_gflops(const GpuSpec& gpu, const Kernel& k);
double peak_gflops(const GpuSpec& gpu, Op op);  // an FP32 kernel of `op`

// min(peak, intensity x bandwidth), in GFLOP/s, for `flops` over `bytes` of an FP32 `op`.
double roofline_gflops(const GpuSpec& gpu, Op op, double flops, double bytes);

// The roofline's two times: the kernel's FLOPs at the peak, its bytes at the bandwidth.
struct RooflineTerms {
  double compute_ms = 0;
  double memory_ms = 0;
};
RooflineTerms roofline_terms(const GpuSpec& gpu, const Kernel& k);

// The roofline's lower bound on the kernel's latency: the larger term.
double roofline_latency_ms(const GpuSpec& gpu, const Kernel& k);
// The same for the kernel's FLOPs and bytes, already computed.
double roofline_latency_ms(const GpuSpec& gpu, const Kernel& k, double flops, double bytes);

}  // namespace tilecast
