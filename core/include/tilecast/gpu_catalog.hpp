// The GPUs of gpu_catalog/, embedded at build time.
#pragma once

#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"

namespace tilecast {

const std::vector<GpuSpec>& gpu_catalog();

// Case-insensitive match on id, name or alias, ignoring spaces, '-' and '_'.
// Throws tilecast::Error listing close candidates when nothing matches.
const GpuSpec& find_gpu(std::string_view name);
// The same match; nullptr when nothing matches.
const GpuSpec* lookup_gpu(std::string_view name);

}  // namespace tilecast
