#include "io.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"

namespace tilecast::cli {

namespace fs = std::filesystem;

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw Error("cannot read '" + path + "': it is a directory; give a file");
  if (!fs::exists(path, ec)) throw Error("cannot read '" + path + "': no such file");
  if (!fs::is_regular_file(path, ec))
    throw Error("cannot read '" + path +
                "': not a regular file (a device, pipe or socket); give a file");
  // every file tilecast reads (configs, GPU specs, traces, CSVs) is a few MB at most: a far larger
  // one is a mistake, refused before it is read into memory
  constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{256} << 20;
  if (const std::uintmax_t bytes = fs::file_size(path, ec); !ec && bytes > kMaxFileBytes)
    throw Error("cannot read '" + path + "': " + std::to_string(bytes) + " bytes; files over " +
                std::to_string(kMaxFileBytes >> 20) + " MiB are refused");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text_file(const std::string& path, const std::string& text) {
  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw Error("cannot write '" + path + "'");
}

bool is_regular_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::vector<std::string> list_files(const std::string& dir, const std::string& suffix) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("'" + dir + "' is not a directory");
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void reject_directory(const std::string& option, const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw Error(option + ": '" + path + "' is a directory; give a JSON file or a name");
}

GpuSpec resolve_gpu(const std::string& name_or_path) {
  reject_directory("--gpu", name_or_path);
  if (is_regular_file(name_or_path))
    return parse_gpu_spec(read_text_file(name_or_path), name_or_path);
  return find_gpu(name_or_path);
}

std::map<std::string, GpuSpec> read_device_dir(const std::string& dir) {
  std::map<std::string, GpuSpec> devices;
  for (const std::string& p : list_files(dir, ".json")) {
    GpuSpec g = parse_gpu_spec(read_text_file(p), p);
    devices.emplace(g.name, g);
  }
  return devices;
}

std::vector<MeasuredKernel> read_kernel_files(const std::vector<std::string>& paths) {
  std::vector<MeasuredKernel> rows;
  for (const std::string& p : paths) {
    std::vector<MeasuredKernel> part =
        parse_kernel_csv(read_text_file(p), p, kernel_csv_dtype_from_path(p));
    rows.insert(rows.end(), std::make_move_iterator(part.begin()),
                std::make_move_iterator(part.end()));
  }
  return rows;
}

nlohmann::json model_sizes_json(const std::string& arg) {
  // sizes:hidden=8192,layers=80,mlp=swiglu: numbers as numbers, true/false as booleans
  nlohmann::json j = nlohmann::json::object();
  std::size_t at = arg.find(':') + 1;
  while (at < arg.size()) {
    const std::size_t end = std::min(arg.find(',', at), arg.size());
    const std::string item = arg.substr(at, end - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--model sizes: '" + item + "' is not KEY=VALUE (e.g. hidden=4096)");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (value == "true" || value == "false") {
      j[key] = value == "true";
    } else if (!value.empty() && value.find_first_not_of("0123456789") == std::string::npos &&
               value.size() < 12) {
      j[key] = std::stoll(value);
    } else if (!value.empty() && value.find_first_not_of("0123456789.eE-+") == std::string::npos &&
               key == "dropout") {
      j[key] = std::stod(value);
    } else {
      j[key] = value;
    }
    at = end + 1;
  }
  return j;
}

bool is_model_sizes(const std::string& arg) { return arg.rfind("sizes:", 0) == 0; }

ModelConfig resolve_model(const std::string& name_or_path) {
  if (is_model_sizes(name_or_path))
    return model_from_sizes(model_sizes_json(name_or_path).dump(), "--model sizes");
  reject_directory("--model", name_or_path);
  if (is_regular_file(name_or_path))
    return parse_model_config(read_text_file(name_or_path), name_or_path);
  const bool looks_like_path =
      name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0;
  if (looks_like_path) throw Error("--model: no such file '" + name_or_path + "'");
  return find_model(name_or_path);
}

nlohmann::json request_with(const GpuSpec& gpu, const std::string& model_arg,
                            const ModelConfig& model) {
  nlohmann::json req;
  req["gpu"] = nlohmann::json::parse(gpu_spec_to_json(gpu));
  if (is_model_sizes(model_arg))
    req["model"] = {{"sizes", model_sizes_json(model_arg)}};
  else if (is_regular_file(model_arg))
    req["model"] = nlohmann::json::parse(read_text_file(model_arg));
  else
    req["model"] = model.id;
  return req;
}

}  // namespace tilecast::cli
