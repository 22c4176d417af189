// Paths the build passes in (the shared measurement data, the repository, the CLI) and a
// runner for the CLI, shared by the tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/train.hpp"

namespace tilecast::test {

inline std::string data_dir() { return TILECAST_DATA_DIR; }
inline std::string repo_dir() { return TILECAST_REPO_DIR; }
inline std::string cli_path() { return TILECAST_CLI; }
std::string read_file(const std::string& path);  // throws when missing
bool file_exists(const std::string& path);
// The files of `dir` whose names end in `ext` (e.g. ".csv"), sorted; none when `dir` is missing.
std::vector<std::string> files_in(const std::string& dir, const std::string& ext);

// The CLI run with `args` (a shell-quoted string): its exit code and stdout + stderr.
struct CliRun {
  int code = -1;
  std::string output;
};
CliRun run_cli(const std::string& args);

// A file of the shared dataset as a trainer input, named by its path under data_dir().
TrainText dataset_file(const std::string& rel);
// The NeuSight CSVs built-in model `id`'s training recipe reads (its manifest's "train"), in
// its order, relative to the data set (e.g. "nvidia/kernels/train/ln/Tesla T4.csv").
std::vector<std::string> recipe_csvs(const std::string& id);
// Every device file of the shared dataset (devices/*.json), sorted by name.
std::vector<TrainText> dataset_device_files();
// Those files parsed, by device name (what eval-kernels' --devices reads).
std::map<std::string, GpuSpec> dataset_devices();
// A shell command line (e.g. a repository script), the same way.
CliRun run_shell(const std::string& command);
// The error parse_gpu_spec gives a minimal catalog-format NVIDIA spec with `extra_fields`
// (e.g. R"(, "dram_efficiency": 1.2)") appended; empty when it parses.
std::string catalog_spec_error(const std::string& extra_fields);
// n values evenly from lo to hi, both included (residuals whose quantiles are known by hand).
std::vector<double> evenly(double lo, double hi, int n);

}  // namespace tilecast::test
