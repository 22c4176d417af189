#include "common/embedded_data.hpp"

#include <memory>
#include <string>

#include "common/packed_numbers.hpp"

namespace tilecast::embedded {
namespace {

// The text of file k; packed files are unpacked once, all together, on first use.
std::string_view text_of(std::size_t k) {
  static const std::unique_ptr<std::string[]> unpacked = [] {
    auto out = std::make_unique<std::string[]>(kFileCount);
    for (std::size_t i = 0; i < kFileCount; ++i)
      if (kFiles[i].packed) out[i] = unpack_numbers(kFiles[i].data, kFiles[i].path);
    return out;
  }();
  return kFiles[k].packed ? std::string_view(unpacked[k]) : kFiles[k].data;
}

}  // namespace

std::string_view find(std::string_view path) {
  for (std::size_t k = 0; k < kFileCount; ++k)
    if (kFiles[k].path == path) return text_of(k);
  return {};
}

bool has(std::string_view path) {
  for (std::size_t k = 0; k < kFileCount; ++k)
    if (kFiles[k].path == path) return true;
  return false;
}

std::vector<JsonFile> json_files_in(std::string_view folder) {
  constexpr std::string_view kExt = ".json";
  std::vector<JsonFile> out;
  for (std::size_t k = 0; k < kFileCount; ++k) {
    const std::string_view path = kFiles[k].path;
    if (path.size() <= folder.size() + 1 + kExt.size() || path.substr(0, folder.size()) != folder ||
        path[folder.size()] != '/' || path.substr(path.size() - kExt.size()) != kExt)
      continue;
    std::string_view stem = path.substr(folder.size() + 1);
    stem.remove_suffix(kExt.size());
    if (stem.find('/') != std::string_view::npos) continue;
    out.push_back({stem, path, text_of(k)});
  }
  return out;
}

}  // namespace tilecast::embedded
