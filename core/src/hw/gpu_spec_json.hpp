// A GPU spec's catalog JSON at a chosen indent (-1: compact), for the list of every GPU, which
// joins the compact texts instead of parsing each back (api/kernel.cpp, list_gpus).
#pragma once

#include <string>

#include "tilecast/gpu_spec.hpp"

namespace tilecast {

// gpu_spec_to_json's text, indented by `indent` spaces (nlohmann's dump: -1 writes it compact).
std::string gpu_spec_json_text(const GpuSpec& gpu, int indent);

}  // namespace tilecast
