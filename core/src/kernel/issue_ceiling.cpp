#include "kernel/issue_ceiling.hpp"

#include <algorithm>

#include "kernel/family.hpp"

namespace tilecast {

double fp32_issue_ceiling(const GpuSpec& gpu, const Kernel& k, const LibraryProfile& library) {
  if (k.dtype != DataType::fp32 || family_of(k.op).unit != ComputeUnit::tensor) return 1.0;
  const double slots = gpu.fp32_issue_slots_per_warp_fma;
  const double fma_share = library.sgemm_fma_instruction_share;
  if (!(slots > 0) || !(fma_share > 0)) return 1.0;
  return std::min(1.0, slots * fma_share);
}

}  // namespace tilecast
