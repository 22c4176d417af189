#include "tilecast/model_zoo.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "embedded_data.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

constexpr std::string_view kPrefix = "model_zoo/";

std::string normalise(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '.') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::vector<ModelConfig> load() {
  std::vector<ModelConfig> zoo;
  for (std::size_t i = 0; i < embedded::kFileCount; ++i) {
    const auto& f = embedded::kFiles[i];
    if (f.path.substr(0, kPrefix.size()) != kPrefix) continue;
    std::string_view stem = f.path.substr(kPrefix.size());
    if (stem.size() < 5 || stem.substr(stem.size() - 5) != ".json") continue;
    stem.remove_suffix(5);
    ModelConfig m = parse_model_config(f.text, f.path);
    m.id = std::string(stem);
    zoo.push_back(std::move(m));
  }
  std::sort(zoo.begin(), zoo.end(),
            [](const ModelConfig& a, const ModelConfig& b) { return a.id < b.id; });
  return zoo;
}

}  // namespace

const std::vector<ModelConfig>& model_zoo() {
  static const std::vector<ModelConfig> zoo = load();
  return zoo;
}

const ModelConfig& find_model(std::string_view name) {
  const std::string key = normalise(name);
  if (!key.empty()) {
    for (const auto& m : model_zoo())
      if (normalise(m.id) == key) return m;
    for (const auto& m : model_zoo())
      if (normalise(m.name) == key) return m;
    for (const auto& m : model_zoo())
      for (const auto& a : m.aliases)
        if (normalise(a) == key) return m;
  }
  std::string ids;
  for (const auto& m : model_zoo()) ids += (ids.empty() ? "" : ", ") + m.id;
  throw Error("unknown model '" + std::string(name) + "'; the zoo holds: " + ids +
              " (or give a Hugging Face config.json)");
}

}  // namespace tilecast
