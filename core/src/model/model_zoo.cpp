#include "tilecast/model_zoo.hpp"

#include <algorithm>
#include <string>

#include "common/embedded_data.hpp"
#include "common/name_key.hpp"
#include "common/sort_by_key.hpp"
#include "tilecast/closest_names.hpp"
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
  detail::sort_by_key(zoo, [](const ModelConfig& m) -> const std::string& { return m.id; });
  return zoo;
}

}  // namespace

const std::vector<ModelConfig>& model_zoo() {
  static const std::vector<ModelConfig> zoo = load();
  return zoo;
}

namespace {

// What a checkpoint's name may add to its architecture's (as name keys: lower case, no '-', '_',
// '.' or spaces): releases (instruct, chat, Meta's "hf" conversions, Gemma's "it") and quantized
// weights (FP8 with or without an FP8 KV cache, FP4, AWQ, GPTQ, INT4/INT8, W8A8, W4A16). Longer
// spellings first where one ends another.
constexpr std::string_view kCheckpointSuffixes[] = {"instruct",   "chat", "hf",    "it",   "fp8kv",
                                                    "fp8dynamic", "fp8",  "nvfp4", "fp4",  "awq",
                                                    "gptq",       "int4", "int8",  "w8a8", "w4a16"};

// "owner/name" -> "name"
std::string_view without_owner(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

// The zoo model whose id, name or alias (with or without its owner) has this key; null if none.
const ModelConfig* match(const std::string& key) {
  if (key.empty()) return nullptr;
  for (const auto& m : model_zoo())
    if (detail::name_key(m.id) == key) return &m;
  for (const auto& m : model_zoo())
    if (detail::name_key(m.name) == key) return &m;
  for (const auto& m : model_zoo())
    for (const auto& a : m.aliases)
      if (detail::name_key(a) == key || detail::name_key(without_owner(a)) == key) return &m;
  return nullptr;
}

}  // namespace

const ModelConfig& find_model(std::string_view name) {
  if (const ModelConfig* m = match(detail::name_key(name))) return *m;
  // a checkpoint of a zoo model: its owner dropped, then its release and quantization
  // suffixes, last first (nvidia/Llama-3.3-70B-Instruct-FP8 -> llama3.3-70b)
  std::string key = detail::name_key(without_owner(name));
  for (bool dropped = true; dropped;) {
    if (const ModelConfig* m = match(key)) return *m;
    dropped = false;
    for (std::string_view suffix : kCheckpointSuffixes)
      if (key.size() > suffix.size() && key.ends_with(suffix)) {
        key.resize(key.size() - suffix.size());
        dropped = true;
        break;
      }
  }
  std::vector<std::string> ids;
  for (const auto& m : model_zoo()) ids.push_back(m.id);
  std::string hint = did_you_mean(without_owner(name), ids);
  if (hint.empty()) {  // nothing close: the whole zoo
    hint = "the zoo holds: ";
    for (std::size_t i = 0; i < ids.size(); ++i) hint += (i ? ", " : "") + ids[i];
  }
  throw Error("unknown model '" + std::string(name) + "'; " + hint +
              " (or give a Hugging Face config.json)");
}

}  // namespace tilecast
