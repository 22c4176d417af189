#include "tilecast/model_zoo.hpp"

#include <algorithm>
#include <string>

#include "common/embedded_data.hpp"
#include "common/name_key.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

std::vector<ModelConfig> load() {
  std::vector<ModelConfig> zoo;
  for (const auto& f : embedded::json_files_in("model_zoo")) {
    ModelConfig m = parse_model_config(f.text, f.path);
    m.id = std::string(f.stem);
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
  const std::string key = detail::name_key(name);
  if (!key.empty()) {
    for (const auto& m : model_zoo())
      if (detail::name_key(m.id) == key) return m;
    for (const auto& m : model_zoo())
      if (detail::name_key(m.name) == key) return m;
    for (const auto& m : model_zoo())
      for (const auto& a : m.aliases)
        if (detail::name_key(a) == key) return m;
  }
  std::string ids;
  for (const auto& m : model_zoo()) ids += (ids.empty() ? "" : ", ") + m.id;
  throw Error("unknown model '" + std::string(name) + "'; the zoo holds: " + ids +
              " (or give a Hugging Face config.json)");
}

}  // namespace tilecast
