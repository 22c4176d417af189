// The systems of gpu_catalog/systems/, embedded at build time, and name lookup.
#include <algorithm>

#include "common/embedded_data.hpp"
#include "common/name_key.hpp"
#include "common/sort_by_key.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/system.hpp"

namespace tilecast {

const std::vector<SystemSpec>& system_catalog() {
  static const std::vector<SystemSpec> catalog = [] {
    std::vector<SystemSpec> out;
    for (const auto& f : embedded::json_files_in("gpu_catalog/systems"))
      out.push_back(parse_system_spec(f.text, f.path));
    detail::sort_by_key(out, [](const SystemSpec& s) -> const std::string& { return s.id; });
    return out;
  }();
  return catalog;
}

const SystemSpec* lookup_system(std::string_view name) {
  const std::string key = detail::name_key(name);
  for (const auto& s : system_catalog()) {
    if (detail::name_key(s.id) == key || detail::name_key(s.name) == key) return &s;
    for (const auto& a : s.aliases)
      if (detail::name_key(a) == key) return &s;
  }
  return nullptr;
}

namespace {

[[noreturn]] void unknown_system(std::string_view name) {
  std::string ids;
  for (const auto& s : system_catalog()) ids += (ids.empty() ? "" : ", ") + s.id;
  throw Error("unknown system '" + std::string(name) + "'; known: " + ids + ", or GPU-node-N (N " +
              "of a catalog GPU, 1 to " + std::to_string(kMaxBuiltNodeGpus) +
              ", wired as its catalog links say), or pass a system file");
}

}  // namespace

const SystemSpec& find_system(std::string_view name) {
  if (const SystemSpec* s = lookup_system(name)) return *s;
  unknown_system(name);
}

SystemSpec system_named(std::string_view name) {
  if (const SystemSpec* s = lookup_system(name)) return *s;
  constexpr std::string_view kNode = "-node-";
  const std::size_t at = name.rfind(kNode);
  if (at != std::string_view::npos && at > 0) {
    const std::string_view count = name.substr(at + kNode.size());
    const bool digits =
        !count.empty() && count.size() <= 3 &&
        std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; });
    const GpuSpec* gpu = lookup_gpu(name.substr(0, at));
    if (digits && gpu) {
      const int n = std::stoi(std::string(count));
      if (n >= 1 && n <= kMaxBuiltNodeGpus)
        if (auto node = node_of_catalog_links(gpu->id, gpu->name, n)) return *node;
    }
  }
  unknown_system(name);
}

}  // namespace tilecast
