#include "tilecast/gpu_catalog.hpp"

#include <algorithm>
#include <string>

#include "embedded_data.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

std::string normalize(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  return out;
}

std::vector<GpuSpec> load_catalog() {
  std::vector<GpuSpec> gpus;
  constexpr std::string_view kPrefix = "gpu_catalog/";
  for (std::size_t i = 0; i < embedded::kFileCount; ++i) {
    const auto& f = embedded::kFiles[i];
    if (f.path.substr(0, kPrefix.size()) != kPrefix) continue;
    GpuSpec g = parse_gpu_spec(f.text, f.path);
    if (g.id.empty()) {
      std::string_view stem = f.path.substr(kPrefix.size());
      g.id = std::string(stem.substr(0, stem.rfind('.')));
    }
    gpus.push_back(std::move(g));
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const GpuSpec& a, const GpuSpec& b) { return a.id < b.id; });
  return gpus;
}

}  // namespace

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = load_catalog();
  return catalog;
}

const GpuSpec& find_gpu(std::string_view name) {
  const std::string key = normalize(name);
  for (const auto& g : gpu_catalog()) {
    if (normalize(g.id) == key || normalize(g.name) == key) return g;
    for (const auto& a : g.aliases)
      if (normalize(a) == key) return g;
  }
  std::string close;
  int shown = 0;
  for (const auto& g : gpu_catalog()) {
    if (key.empty() || normalize(g.id).find(key.substr(0, std::min<std::size_t>(key.size(), 3))) ==
                           std::string::npos)
      continue;
    close += (shown++ ? ", " : "") + g.id;
    if (shown == 8) break;
  }
  std::string msg = "unknown GPU '" + std::string(name) + "'";
  msg += close.empty() ? "; run 'tilecast gpus' for the catalog, or pass a spec file"
                       : "; did you mean: " + close + "?";
  throw Error(msg);
}

}  // namespace tilecast
