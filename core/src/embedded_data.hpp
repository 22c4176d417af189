// Files compiled into the library (catalog, model zoo, trained weights); the
// definitions are generated at build time by core/cmake/embed_files.cmake.
#pragma once

#include <cstddef>
#include <string_view>

namespace tilecast::embedded {

struct File {
  std::string_view path;  // relative to the repository root, e.g. "gpu_catalog/t4.json"
  std::string_view text;
};

extern const File kFiles[];
extern const std::size_t kFileCount;

// The text of `path`, or an empty view when it was not embedded.
std::string_view find(std::string_view path);

}  // namespace tilecast::embedded
