// The device memory a GPU's driver reports (tilecast/gpu_spec.hpp, device_memory_bytes): the
// catalog's printed total where it has one, else the datasheet's GB by the memory type's rule
// (docs/catalog-sanity.md, "Memory as the driver reports it", lists the totals behind the rule).
#include <string_view>

#include "tilecast/gpu_spec.hpp"

namespace tilecast {
namespace {

constexpr std::string_view kMemoryTypes[] = {"HBM2",  "HBM2e", "HBM3",   "HBM3e", "HBM4",
                                             "GDDR5", "GDDR6", "GDDR6X", "GDDR7"};
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;
// GDDR5/6/6X with ECC on keeps 1/16 of its bytes for the check bits (an L40S: 49152 MiB of
// chips, 46068 MiB printed); GDDR7 keeps them on the chips and prints binary GB with ECC on or
// off (an RTX PRO 6000 Blackwell, "96 GB GDDR7 with ECC": 97887 MiB; docs/catalog-sanity.md)
constexpr double kGddrEccShare = 15.0 / 16.0;

}  // namespace

std::span<const std::string_view> memory_type_names() { return kMemoryTypes; }

double device_memory_bytes(const GpuSpec& gpu) {
  if (gpu.mem_reported_mib > 0) return gpu.mem_reported_mib * kMiB;
  const std::string_view type = gpu.memory_type;
  if (type.starts_with("HBM") || type == "GDDR7") return gpu.mem_gb * kGiB;
  if (type.starts_with("GDDR")) return gpu.mem_gb * kGiB * kGddrEccShare;
  return gpu.mem_gb * 1e9;
}

}  // namespace tilecast
