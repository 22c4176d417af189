// FNV-1a 64 over a sequence of strings (each followed by a separator byte), the hash that
// weights files record of their training inputs so that stale weights are detected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tilecast/gpu_spec.hpp"

namespace tilecast::train {

inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;

inline void fnv1a_mix(std::uint64_t& h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= 0xff;
  h *= 1099511628211ull;
}

// A training GPU's spec as the hashes mix it: its JSON without the fields no feature reads, so
// that a model's hash stays about what it learned from: the compute capability (it picks library
// kernels for the graphs: kernel/library_profile.hpp) and the memory's type and printed total
// (serving and training memory: device_memory_bytes).
inline std::string hashed_gpu_spec(GpuSpec g) {
  g.compute_capability = 0;
  g.memory_type.clear();
  g.mem_reported_mib = 0;
  g.mem_reported_source.clear();
  return gpu_spec_to_json(g);
}

}  // namespace tilecast::train
