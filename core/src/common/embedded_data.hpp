// Files compiled into the library (catalog, model zoo, trained weights). The table
// kFiles is generated at build time by core/cmake/embed_files.cmake.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace tilecast::embedded {

struct File {
  std::string_view path;  // relative to the repository root, e.g. "gpu_catalog/t4.json"
  std::string_view text;
};

extern const File kFiles[];
extern const std::size_t kFileCount;

// The text of `path`, or an empty view when it was not embedded.
std::string_view find(std::string_view path);

struct JsonFile {
  std::string_view stem;  // file name without folder and ".json", e.g. "t4"
  std::string_view path;
  std::string_view text;
};
// The embedded "<folder>/*.json" files, in path order.
std::vector<JsonFile> json_files_in(std::string_view folder);

}  // namespace tilecast::embedded
