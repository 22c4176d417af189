// The Hugging Face configs of model_zoo/, embedded at build time.
#pragma once

#include <string_view>
#include <vector>

#include "tilecast/model_config.hpp"

namespace tilecast {

// Every zoo model, sorted by id (the file stem, e.g. "gpt3-2.7b").
const std::vector<ModelConfig>& model_zoo();

// Case-insensitive match on id, tilecast_name or alias, ignoring spaces, '-', '_'
// and '.'; failing that, a checkpoint of a zoo model: the name without its owner ("nvidia/")
// and its release and quantization suffixes ("-Instruct", "-FP8", ...). Throws
// tilecast::Error listing the zoo ids when nothing matches.
const ModelConfig& find_model(std::string_view name);

}  // namespace tilecast
