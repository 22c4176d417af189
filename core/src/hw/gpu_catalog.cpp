#include "tilecast/gpu_catalog.hpp"

#include <algorithm>
#include <string>

#include "common/embedded_data.hpp"
#include "common/name_key.hpp"
#include "common/sort_by_key.hpp"
#include "tilecast/closest_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

std::vector<GpuSpec> load_catalog() {
  std::vector<GpuSpec> gpus;
  for (const auto& f : embedded::json_files_in("gpu_catalog")) {
    GpuSpec g = parse_gpu_spec(f.text, f.path);
    if (g.id.empty()) g.id = std::string(f.stem);
    gpus.push_back(std::move(g));
  }
  detail::sort_by_key(gpus, [](const GpuSpec& g) -> const std::string& { return g.id; });
  return gpus;
}

}  // namespace

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = load_catalog();
  return catalog;
}

const GpuSpec* lookup_gpu(std::string_view name) {
  const std::string key = detail::name_key(name);
  for (const auto& g : gpu_catalog()) {
    const std::string name_key = detail::name_key(g.name);
    const std::string vendor_key = detail::name_key(g.vendor);
    const bool name_without_vendor =
        name_key.rfind(vendor_key, 0) == 0 && name_key.substr(vendor_key.size()) == key;
    if (detail::name_key(g.id) == key || name_key == key || name_without_vendor) return &g;
    for (const auto& a : g.aliases)
      if (detail::name_key(a) == key) return &g;
  }
  return nullptr;
}

const GpuSpec& find_gpu(std::string_view name) {
  if (const GpuSpec* g = lookup_gpu(name)) return *g;
  std::vector<std::string> ids;
  for (const auto& g : gpu_catalog()) ids.push_back(g.id);
  const std::string close = did_you_mean(name, ids);
  std::string msg = "unknown GPU '" + std::string(name) + "'";
  msg +=
      close.empty() ? "; run 'tilecast gpus' for the catalog, or pass a spec file" : "; " + close;
  throw Error(msg);
}

}  // namespace tilecast
