// The share of its datasheet matrix peak a GPU's matrix cores can sustain through a dense GEMM:
// the clock they hold under that load over the boost clock the peak is quoted at, where the
// vendor has measured it (gpu_catalog `matrix_clock_mhz`). A datasheet mechanism like the DRAM
// efficiency: the tensor-core GEMM model learned NVIDIA GPUs that hold about their boost clock,
// and a GPU whose vendor states a lower sustained clock keeps its vendor's statement. It applies
// to GEMMs that keep the matrix cores busy, compute-bound at that clock (learned/tensor_gemm.cpp);
// a memory-bound GEMM leaves them lightly loaded, where, by the same vendor, the GPU boosts
// ("boost clock capabilities remain important for latency-sensitive workloads such as LLM
// inference with small batch sizes").
#pragma once

#include <string>

#include "tilecast/gpu_spec.hpp"

namespace tilecast {

// gpu.matrix_clock_mhz[t] / gpu.clock_mhz where stated; 1 otherwise.
double matrix_clock_share(const GpuSpec& gpu, DataType t);

// "GEMMs in bf16 run at the matrix clock AMD measured ...": the caveat of a forecast whose GEMMs
// run in `t` on a GPU with a stated matrix clock for it; empty otherwise.
std::string matrix_clock_caveat(const GpuSpec& gpu, DataType t);

}  // namespace tilecast
