#include "common/embedded_data.hpp"

namespace tilecast::embedded {

std::string_view find(std::string_view path) {
  for (std::size_t k = 0; k < kFileCount; ++k)
    if (kFiles[k].path == path) return kFiles[k].text;
  return {};
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
    out.push_back({stem, path, kFiles[k].text});
  }
  return out;
}

}  // namespace tilecast::embedded
