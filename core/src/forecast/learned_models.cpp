// Run-time models through the registry: a manifest written here, the files given as text.
#include "tilecast/learned_models.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "forecast/model_registry.hpp"
#include "kernel/family.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

ModelManifest fp32_manifest(std::string_view id, std::string_view kind, std::string_view vendor) {
  ModelManifest m;
  m.id = id;
  m.kind = kind;
  m.vendor = vendor;
  m.precisions = {DataType::fp32};
  return m;
}

}  // namespace

void register_fp32_weights(std::string_view vendor, std::string_view weights_json,
                           std::string_view tile_table_json, std::string_view origin) {
  const std::string o(origin);
  ModelManifest m = fp32_manifest(o, "learned_net", vendor);
  auto model = build_model(m, {{"weights", weights_json}, {"tile_table", tile_table_json}},
                           {{"weights", o + " (weights)"}, {"tile_table", o + " (tile table)"}});
  register_model(m, model);
  m.families = {"gemm"};  // ahead of an embedded analytic GEMM model too
  register_model(m, std::move(model));
}

void register_amd_gemm_model(std::string_view model_json, std::string_view weights_json,
                             std::string_view tile_table_json, std::string_view origin) {
  const std::string o(origin);
  const std::map<std::string, std::string> origins = {
      {"model", o}, {"weights", o + " (weights)"}, {"tile_table", o + " (tile table)"}};
  auto net = build_model(fp32_manifest(o, "learned_net", "AMD"),
                         {{"weights", weights_json}, {"tile_table", tile_table_json}}, origins);
  ModelManifest m = fp32_manifest(o, "amd_gemm", "AMD");
  m.families = {"gemm"};
  register_model(m, build_model(m, {{"model", model_json}, {"tile_table", tile_table_json}},
                                origins, std::move(net)));
}

std::string model_ids() {
  std::string ids;
  for (const ModelManifest& m : embedded_manifests()) ids += (ids.empty() ? "" : ", ") + m.id;
  return ids;
}

bool model_serves(std::string_view id, std::string_view vendor, const Kernel& kernel) {
  const ModelManifest* m = find_manifest(id);
  if (!m) throw Error("no model '" + std::string(id) + "' is built in; known: " + model_ids());
  const std::string_view family = family_of(kernel.op).name;
  if (!m->serves_family(family)) return false;
  const auto has = [&](const std::vector<DataType>& types) {
    return std::find(types.begin(), types.end(), kernel.dtype) != types.end();
  };
  if ((m->serves_any_vendor || m->vendor == vendor) && has(m->precisions)) return true;
  // or by one of its transfers (ModelManifest::transfers)
  return std::any_of(
      m->transfers.begin(), m->transfers.end(),
      [&](const ModelManifest::Transfer& t) { return t.vendor == vendor && has(t.precisions); });
}

namespace {

constexpr const char* kModelsDir = "core/data/models/";

// Each brace list of `word` expanded, the first list outermost, as a shell does; a word
// without one is itself.
std::vector<std::string> expand_braces(const std::string& word) {
  const std::size_t open = word.find('{');
  const std::size_t close = open == std::string::npos ? open : word.find('}', open);
  if (close == std::string::npos) return {word};
  const std::string head = word.substr(0, open), list = word.substr(open + 1, close - open - 1);
  const std::vector<std::string> tails = expand_braces(word.substr(close + 1));
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    for (const std::string& tail : tails)
      out.push_back(head + list.substr(start, comma - start) + tail);
    start = comma + 1;
  }
  return out;
}

// `word` with {data:SET}, {out} and {out:ID} replaced.
std::string fill(std::string word, const std::string& id, const std::string& data_dir,
                 const std::string& out_dir) {
  auto folder = [&](const std::string& model) {
    return out_dir.empty() ? std::string(kModelsDir) + model : out_dir;
  };
  for (std::size_t at; (at = word.find("{data:")) != std::string::npos;) {
    const std::size_t end = word.find('}', at);
    if (end == std::string::npos) break;
    word.replace(at, end + 1 - at, data_dir + "/" + word.substr(at + 6, end - at - 6));
  }
  for (std::size_t at; (at = word.find("{out:")) != std::string::npos;) {
    const std::size_t end = word.find('}', at);
    if (end == std::string::npos) break;
    word.replace(at, end + 1 - at, folder(word.substr(at + 5, end - at - 5)));
  }
  for (std::size_t at; (at = word.find("{out}")) != std::string::npos;)
    word.replace(at, 5, folder(id));
  return word;
}

}  // namespace

std::vector<std::string> model_training_recipe(std::string_view id, const std::string& data_dir,
                                               const std::string& out_dir) {
  const ModelManifest* m = find_manifest(id);
  if (!m) throw Error("no model '" + std::string(id) + "' is built in; known: " + model_ids());
  if (!m->train_with.empty()) m = find_manifest(m->train_with);
  if (m->train.empty())
    throw Error("model '" + std::string(id) + "' states no training recipe (field 'train' of " +
                kModelsDir + std::string(id) + "/manifest.json)");
  std::vector<std::string> words;
  for (const std::string& w : m->train)
    for (const std::string& e : expand_braces(fill(w, m->id, data_dir, out_dir)))
      words.push_back(e);
  return words;
}

namespace {

// Model `m` built from the files `read_file` gives, or null when it lacks one of them.
std::shared_ptr<const KernelPredictor> model_from_files(
    const ModelManifest& m,
    const std::function<std::optional<std::string>(const std::string& file)>& read_file) {
  std::map<std::string, std::string> owned, origins;
  for (const auto& [role, file] : m.files) {
    std::optional<std::string> text = read_file(file);
    if (!text) return nullptr;
    owned[role] = std::move(*text);
    origins[role] = file;
  }
  std::shared_ptr<const KernelPredictor> used;
  if (!m.uses.empty()) {
    used = model_from_files(*find_manifest(m.uses), read_file);
    if (!used) used = embedded_model(m.uses);
  }
  // A used model's files serve the roles this one lacks (e.g. the AMD GEMM model's tile table).
  if (!m.uses.empty())
    for (const auto& [role, file] : find_manifest(m.uses)->files)
      if (!owned.count(role))
        if (std::optional<std::string> text = read_file(file)) {
          owned[role] = std::move(*text);
          origins[role] = file;
        }
  std::map<std::string, std::string_view> texts;
  for (const auto& [role, text] : owned) texts[role] = text;
  return build_model(m, texts, origins, std::move(used));
}

}  // namespace

void use_model(
    std::string_view id, const std::vector<std::string>& vendors,
    const std::function<std::optional<std::string>(const std::string& file)>& read_file) {
  const ModelManifest* m = find_manifest(id);
  if (!m) throw Error("no model '" + std::string(id) + "' is built in; known: " + model_ids());
  std::shared_ptr<const KernelPredictor> model = model_from_files(*m, read_file);
  if (!model) model = embedded_model(id);
  std::vector<std::string> families = m->families;
  if (families.empty())
    for (int f = 0; f < family_count(); ++f) families.emplace_back(family_traits(OpFamily(f)).name);
  for (const std::string& vendor : vendors)
    for (DataType t : m->precisions)
      for (const std::string& family : families)
        register_learned_model({vendor, t, family}, model, m->id);
}

}  // namespace tilecast
