// Files compiled into the library (catalog, model zoo, trained weights). The table
// kFiles is generated at build time by core/cmake/embed_files.cmake; the trained weights are
// stored with their numbers packed (common/packed_numbers.hpp) and read back as their text.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace tilecast::embedded {

struct File {
  std::string_view path;  // relative to the repository root, e.g. "gpu_catalog/t4.json"
  std::string_view data;  // the text, or its packed form when `packed`
  bool packed = false;
};

extern const File kFiles[];
extern const std::size_t kFileCount;

// The text of `path` (the file's bytes as they were when built), or an empty view when it
// was not embedded.
std::string_view find(std::string_view path);
// Whether `path` was embedded, without reading (or unpacking) it.
bool has(std::string_view path);

struct JsonFile {
  std::string_view stem;  // file name without folder and ".json", e.g. "t4"
  std::string_view path;
  std::string_view text;
};
// The embedded "<folder>/*.json" files, in path order.
std::vector<JsonFile> json_files_in(std::string_view folder);

}  // namespace tilecast::embedded
