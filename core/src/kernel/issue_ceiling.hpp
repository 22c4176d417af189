// The instruction-issue ceiling of FP32 GEMMs: on SMs whose schedulers have one issue slot per
// warp FP32 FMA (GA10x, Ada, Hopper, Blackwell), the loads and address arithmetic of an SGEMM
// loop take slots the FMAs need, so the FP32 peak is out of reach; on older SMs they fit in
// the spare slots. A datasheet mechanism the training GPUs (all with spare slots) cannot teach.
#pragma once

#include "kernel/library_profile.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

// The largest share of the FP32 peak `k` can reach for lack of issue slots: 1 unless `k` is
// an FP32 GEMM-family kernel and both the GPU's issue slots and the library's FMA share are
// stated; then min(1, slots x FMA share).
double fp32_issue_ceiling(const GpuSpec& gpu, const Kernel& k, const LibraryProfile& library);

}  // namespace tilecast
