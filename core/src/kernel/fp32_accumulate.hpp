// Tensor math at a reduced rate with FP32 accumulation: GeForce parts run FP16, BF16 and FP8
// tensor math accumulating in FP32 (what cuBLAS and PyTorch GEMMs use) at half the
// FP16-accumulate rate, their whitepapers say (gpu_catalog `fp32_accumulate_share`); the
// professional parts of the same chips do not. The catalog's peaks are already the
// FP32-accumulate ones; what this adds is how a GEMM's efficiency follows. The tensor-core GEMM
// model learned its compute_scale on GPUs at the full rate (A100, A40): the excess over 1 is time
// a tile spends beyond its matrix instructions (loads, prologue, epilogue), which does not slow
// with them, so at a share s of the rate a compute-bound GEMM takes
// (1 + (compute_scale - 1) x s) of its time at the peak (learned/tensor_gemm.cpp).
#pragma once

#include <string>

#include "tilecast/gpu_spec.hpp"

namespace tilecast {

// gpu.fp32_accumulate_share[t] where stated; 1 otherwise.
double fp32_accumulate_share(const GpuSpec& gpu, DataType t);

// "FP32 accumulation: ... at half the FP16-accumulate rate ...": the caveat of a forecast whose
// GEMMs run in `t` on a GPU with a stated share below 1 for it; empty otherwise.
std::string fp32_accumulate_caveat(const GpuSpec& gpu, DataType t);

}  // namespace tilecast
