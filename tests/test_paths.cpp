#include "test_paths.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tilecast/error.hpp"
#include "tilecast/learned_models.hpp"

namespace tilecast::test {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test fixture missing: " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

std::vector<std::string> files_in(const std::string& dir, const std::string& ext) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

CliRun run_cli(const std::string& args) { return run_shell(cli_path() + " " + args); }

CliRun run_shell(const std::string& command) {
  CliRun r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) throw std::runtime_error("cannot run " + command);
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

TrainText dataset_file(const std::string& rel) { return {rel, read_file(data_dir() + "/" + rel)}; }

std::vector<std::string> recipe_csvs(const std::string& id) {
  const std::string prefix = "DATA/neusight/";
  std::vector<std::string> out;
  for (const std::string& w : model_training_recipe(id, "DATA", ""))
    if (w.rfind(prefix, 0) == 0 && w.size() > 4 && w.substr(w.size() - 4) == ".csv")
      out.push_back(w.substr(prefix.size()));
  return out;
}

std::vector<TrainText> dataset_device_files() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(data_dir() + "/devices"))
    if (e.path().extension() == ".json") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::vector<TrainText> out;
  for (const auto& n : names) out.push_back(dataset_file("devices/" + n));
  return out;
}

std::map<std::string, GpuSpec> dataset_devices() {
  std::map<std::string, GpuSpec> out;
  for (const TrainText& d : dataset_device_files()) {
    GpuSpec g = parse_gpu_spec(d.text, d.name);
    out.emplace(g.name, g);
  }
  return out;
}

std::string catalog_spec_error(const std::string& extra_fields) {
  const std::string base = R"({"name": "X", "vendor": "NVIDIA", "num_sm": 10,
    "cores_per_sm": 128, "boost_clock_mhz": 1500, "fp32_gflops": 3840, "mem_gb": 8,
    "mem_bw_gbps": 300, "l2_mb": 4, "source": "s")";
  try {
    parse_gpu_spec(base + extra_fields + "}", "x.json");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

std::vector<double> evenly(double lo, double hi, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * i / (n - 1));
  return v;
}

}  // namespace tilecast::test
