#include "label_files.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "io.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast::cli {
namespace {

std::vector<std::string> subdirectories(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error("--labels: '" + dir + "' is not a directory");
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// The machine.json the kit writes beside labels/ (versions, per-label details), or null when
// the label set has none (NeuSight's data) or it is not a JSON object.
nlohmann::json measured_machine(const std::string& labels) {
  std::filesystem::path dir = std::filesystem::path(labels).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "labels/"
  const std::string machine = (dir.parent_path() / "machine.json").string();
  if (!is_regular_file(machine)) return nullptr;
  auto j = nlohmann::json::parse(read_text_file(machine), nullptr, false);
  return j.is_object() ? j : nullptr;
}

// The transformers release the measurement ran ("transformers"), or "" when it records none.
std::string measured_transformers(const nlohmann::json& machine) {
  if (!machine.is_object() || !machine.contains("transformers") ||
      !machine["transformers"].is_string())
    return "";
  return machine["transformers"].get<std::string>();
}

// The experts implementation each label ran ("experts_implementation" of its entry in
// "labels"; the kit records it for every label), by label stem.
std::map<std::string, std::string> measured_experts(const nlohmann::json& machine) {
  std::map<std::string, std::string> out;
  if (!machine.is_object() || !machine.contains("labels") || !machine["labels"].is_array())
    return out;
  for (const auto& l : machine["labels"])
    if (l.is_object() && l.contains("label") && l["label"].is_string() &&
        l.contains("experts_implementation") && l["experts_implementation"].is_string())
      out[l["label"].get<std::string>()] = l["experts_implementation"].get<std::string>();
  return out;
}

// The model config with the release its labels ran (ModelConfig::transformers_major) and the
// experts implementation the label ran (ModelConfig::experts_implementation), each unless the
// config names one itself.
std::string with_transformers(const std::string& model_json, const std::string& version,
                              const std::string& experts) {
  if (version.empty() && experts.empty()) return model_json;
  auto j = nlohmann::json::parse(model_json, nullptr, false);
  if (!j.is_object()) return model_json;
  if (!version.empty() && !j.contains("tilecast_transformers_version"))
    j["tilecast_transformers_version"] = version;
  if (!experts.empty() && !j.contains("tilecast_experts_implementation"))
    j["tilecast_experts_implementation"] = experts;
  return j.dump();
}

}  // namespace

LabelFiles collect_labels(const std::string& devices, const std::string& models,
                          const std::string& labels, bool with_options) {
  LabelFiles out;
  const nlohmann::json machine = measured_machine(labels);
  const std::string transformers = measured_transformers(machine);
  const std::map<std::string, std::string> experts = measured_experts(machine);
  for (const auto& device : subdirectories(labels)) {
    const std::string spec = devices + "/" + device + ".json";
    const auto files = list_files(labels + "/" + device, ".json");
    if (files.empty()) continue;
    if (!is_regular_file(spec)) {
      out.notes.push_back("no device file " + spec + ": " + std::to_string(files.size()) +
                          " labels of " + device + " skipped");
      continue;
    }
    const std::string gpu_json = read_text_file(spec);
    for (const auto& f : files) {
      const std::string stem = stem_of(f);
      const auto name = parse_label_name(stem);
      if (!name) {
        out.notes.push_back("not a label name: " + device + "/" + stem);
        continue;
      }
      if (!name->option.empty() && (!with_options || !option_modelled(*name))) {
        out.skipped.push_back(device + "/" + stem);
        continue;
      }
      const std::string model = models + "/" + name->model + ".json";
      if (!is_regular_file(model)) {
        out.notes.push_back("no model config " + model + ": " + device + "/" + stem + " skipped");
        continue;
      }
      const auto ran = experts.find(stem);
      if (ran != experts.end() && !find_enum(experts_implementation_names(), ran->second)) {
        out.notes.push_back(device + "/" + stem + " ran experts_implementation '" + ran->second +
                            "', which tilecast does not model (" +
                            enum_names_joined(experts_implementation_names(), ", ") + "): skipped");
        continue;
      }
      out.inputs.push_back({stem, gpu_json,
                            with_transformers(read_text_file(model), transformers,
                                              ran == experts.end() ? "" : ran->second),
                            read_text_file(f)});
    }
  }
  return out;
}

}  // namespace tilecast::cli
