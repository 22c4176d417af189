#include "label_files.hpp"

#include <algorithm>
#include <filesystem>

#include "io.hpp"
#include "tilecast/error.hpp"

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

}  // namespace

LabelFiles collect_labels(const std::string& devices, const std::string& models,
                          const std::string& labels, bool with_options) {
  LabelFiles out;
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
      out.inputs.push_back({stem, gpu_json, read_text_file(model), read_text_file(f)});
    }
  }
  return out;
}

}  // namespace tilecast::cli
