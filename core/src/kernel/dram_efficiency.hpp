// The DRAM bandwidth the learned models measure memory time against: the datasheet peak,
// scaled where the vendor states how much of it the memory controller delivers (Volta's
// "greater than 95 %", against Pascal GP100's lower share) relative to the share the library
// profile assumes of a GPU whose vendor states none. A datasheet mechanism: the training GPUs
// differ in it, and a GPU the models never saw keeps its vendor's statement.
#pragma once

#include "kernel/library_profile.hpp"
#include "tilecast/gpu_spec.hpp"

namespace tilecast {

// gpu.mem_bw_gbps x gpu.dram_efficiency / library.typical_dram_efficiency when both are
// stated; gpu.mem_bw_gbps otherwise (so GPUs without a statement keep the datasheet peak).
double learned_mem_bw_gbps(const GpuSpec& gpu, const LibraryProfile& library);

}  // namespace tilecast
