// The systems of gpu_catalog/systems/, embedded at build time, and name lookup.
#include <algorithm>

#include "common/embedded_data.hpp"
#include "common/name_key.hpp"
#include "common/sort_by_key.hpp"
#include "tilecast/error.hpp"
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

std::string system_catalog_ids() {
  std::string ids;
  for (const auto& s : system_catalog()) ids += (ids.empty() ? "" : ", ") + s.id;
  return ids;
}

const SystemSpec& find_system(std::string_view name) {
  if (const SystemSpec* s = lookup_system(name)) return *s;
  throw Error("unknown system '" + std::string(name) + "'; known: " + system_catalog_ids() +
              ", or GPU-node-N (N of a catalog GPU, 1 to " + std::to_string(kMaxBuiltNodeGpus) +
              ", wired as its catalog links say), or pass a system file");
}

}  // namespace tilecast
