// FNV-1a 64 over a sequence of strings (each followed by a separator byte), the hash that
// weights files record of their training inputs so that stale weights are detected.
#pragma once

#include <cstdint>
#include <string_view>

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

}  // namespace tilecast::train
