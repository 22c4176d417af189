// File access for the CLI (the core never touches files).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_csv.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast::cli {

std::string read_text_file(const std::string& path);  // throws Error naming the path
void write_text_file(const std::string& path, const std::string& text);
bool is_regular_file(const std::string& path);
// Files in `dir` ending in `suffix`, sorted; throws when `dir` is not a directory.
std::vector<std::string> list_files(const std::string& dir, const std::string& suffix);

// Throws "<option>: '<path>' is a directory ..." when `path` names a directory.
void reject_directory(const std::string& option, const std::string& path);

// A catalog name (case-insensitive) or a path to a spec file (catalog or dataset format).
GpuSpec resolve_gpu(const std::string& name_or_path);

// Every device spec in `dir` (*.json, either format), by its name.
std::map<std::string, GpuSpec> read_device_dir(const std::string& dir);
// The rows of measured-kernel CSV files, in order.
std::vector<MeasuredKernel> read_kernel_files(const std::vector<std::string>& paths);

// A zoo name (case-insensitive) or a path to a Hugging Face config.json.
// A zoo name, a config file, or a model by its sizes ("sizes:hidden=4096,layers=32,...").
ModelConfig resolve_model(const std::string& name_or_path);
bool is_model_sizes(const std::string& arg);
nlohmann::json model_sizes_json(const std::string& arg);  // "sizes:k=v,..." as an object

// A JSON API request's "gpu" (the resolved spec) and "model" (the zoo id, or the config file's
// contents when `model_arg` names a file).
nlohmann::json request_with(const GpuSpec& gpu, const std::string& model_arg,
                            const ModelConfig& model);

}  // namespace tilecast::cli
