// File access for the CLI (the core never touches files).
#pragma once

#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"

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

}  // namespace tilecast::cli
