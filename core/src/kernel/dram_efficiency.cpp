#include "kernel/dram_efficiency.hpp"

namespace tilecast {

double learned_mem_bw_gbps(const GpuSpec& gpu, const LibraryProfile& library) {
  if (!(gpu.dram_efficiency > 0) || !(library.typical_dram_efficiency > 0)) return gpu.mem_bw_gbps;
  return gpu.mem_bw_gbps * gpu.dram_efficiency / library.typical_dram_efficiency;
}

}  // namespace tilecast
