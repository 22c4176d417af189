// The measurement kit's output (scripts/measure/) is read as written: kernel CSVs with
// the kit's extra `Source` column, its device JSON, its labels and model copies, through
// the core's parsers and through `tilecast eval-kernels` / `eval-e2e`. The fixture is a
// CPU smoke run committed under tests/data/measure_sample (CI has no GPU).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "tilecast/e2e_eval.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_eval.hpp"

using namespace tilecast;
namespace fs = std::filesystem;

namespace {

const char* kDevice = "CPU dry run x86_64";
const char* kStem = "CPU_dry_run_x86_64";

std::string sample_dir() { return test::repo_dir() + "/tests/data/measure_sample"; }

std::vector<MeasuredKernel> sample_rows() {
  std::vector<MeasuredKernel> rows;
  for (const auto& p : test::files_in(sample_dir() + "/kernels", ".csv")) {
    auto part = parse_kernel_csv(test::read_file(p), p);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

std::map<std::string, GpuSpec> sample_devices() {
  std::map<std::string, GpuSpec> devices;
  for (const auto& p : test::files_in(sample_dir() + "/devices", ".json")) {
    GpuSpec g = parse_gpu_spec(test::read_file(p), p);
    devices.emplace(g.name, g);
  }
  return devices;
}

using Run = test::CliRun;
using test::run_cli;

std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

TEST_SUITE("measure_kit") {
  TEST_CASE("the sample's kernel CSVs parse: ops, shapes, devices, names, empty geometry") {
    const auto rows = sample_rows();
    REQUIRE(rows.size() == 20);
    std::set<std::string> ops;
    for (const auto& r : rows) {
      CAPTURE(r.origin);
      ops.insert(std::string(op_name(r.kernel.op)));
      CHECK(r.device == kDevice);
      CHECK(r.latency_ms > 0);
      CHECK(std::isfinite(r.latency_ms));
      CHECK_FALSE(r.kernel_name.empty());                     // the profiler pass named every row
      CHECK(r.grid == std::array<std::int64_t, 3>{1, 1, 1});  // empty on a CPU run
      if (r.kernel.op == Op::linear) CHECK(r.kernel.dims[0] == 1);
    }
    CHECK(ops == std::set<std::string>{"bmm", "linear", "add", "mulu", "gelu", "softmax", "ln"});
    // One row checked field by field (kernels/bmm.csv, first data row).
    const auto bmm = parse_kernel_csv(test::read_file(sample_dir() + "/kernels/bmm.csv"), "bmm");
    REQUIRE(!bmm.empty());
    CHECK(bmm[0].kernel.op == Op::bmm);
    CHECK(bmm[0].kernel_name == "aten::bmm");
    CHECK(bmm[0].origin == "bmm:2");
  }

  TEST_CASE("a GPU row as the kit writes it: kernel name, grid, the extra Source column") {
    const std::string csv =
        "OPName,Latency,Device,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,"
        "Block x,Block y,Block z,B,M,N,K,Source\n"
        "linear,0.25,NVIDIA H200,sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8_stage3,"
        "4.0,0.5,32,16,1,128,1,1,1,2048,768,3072,model:gpt2:b2:s1024\n"
        "bmm,0.0312,NVIDIA H200,,,,,,,,,,48,1024,64,1024,random\n";
    const auto rows = parse_kernel_csv(csv, "kit.csv");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].kernel.dims == std::array<std::int64_t, 4>{1, 2048, 768, 3072});
    CHECK(rows[0].grid == std::array<std::int64_t, 3>{32, 16, 1});
    CHECK(rows[0].kernel_name == "sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x64x8_stage3");
    CHECK(rows[1].kernel_name.empty());
    CHECK(rows[1].grid == std::array<std::int64_t, 3>{1, 1, 1});
  }

  TEST_CASE("the device JSONs parse: the sample's, and the kit's H200 file from the catalog") {
    const auto devices = sample_devices();
    REQUIRE(devices.size() == 1);
    const GpuSpec& g = devices.begin()->second;
    CHECK(g.name == kDevice);
    CHECK(g.num_sm >= 1);
    CHECK(g.fp32_gflops > 0);
    // What device.py writes for an H200 (SingleFLOPs etc. from gpu_catalog/h200.json;
    // Dev_Mem and L2 as torch reports them).
    const GpuSpec h = parse_gpu_spec(R"({"Device": "NVIDIA H200", "Dev_Mem": 140, "Mem_Bw": 4800,
        "Num_Sm": 132, "Core_Per_SM": 128, "Freq": 1980, "SingleFLOPs": 67000, "L2Cache": 50})",
                                     "NVIDIA_H200.json");
    CHECK(h.name == "NVIDIA H200");
    CHECK(h.fp32_gflops == 67000);
    CHECK(h.max_threads_per_sm == 2048);  // found in the catalog by the CUDA device name
  }

  TEST_CASE("the kernel report covers every sample row") {
    const auto rows = sample_rows();
    const EvalReport rep = evaluate_kernels(rows, sample_devices(), Predictor::roofline);
    CHECK(rep.n == std::int64_t(rows.size()));
    CHECK(rep.groups.size() == 7);
    for (const auto& g : rep.groups) CHECK(g.gpu == kDevice);
  }

  TEST_CASE("labels map to model files and the device file by name, as eval-e2e reads them") {
    const std::string dir = sample_dir() + "/labels/" + kStem;
    const std::string spec = test::read_file(sample_dir() + "/devices/" + kStem + ".json");
    std::vector<E2eInput> inputs;
    int with_option = 0;
    for (const auto& f : test::files_in(dir, ".json")) {
      const std::string stem = fs::path(f).stem().string();
      const auto name = parse_label_name(stem);
      REQUIRE(name);
      if (!name->option.empty()) {
        CHECK(name->option == "standin");
        ++with_option;
        continue;
      }
      const std::string model = sample_dir() + "/models/" + name->model + ".json";
      REQUIRE(test::file_exists(model));
      inputs.push_back({stem, spec, test::read_file(model), test::read_file(f)});
    }
    CHECK(with_option == 1);
    REQUIRE(inputs.size() == 2);
    const E2eReport r = evaluate_e2e(inputs, Predictor::roofline);
    REQUIRE(r.cases.size() == 2);
    CHECK(r.cases[0].model == "bert_base");
    CHECK(r.cases[0].mode == "training");
    CHECK(r.cases[0].seq == 32);
    CHECK(r.cases[1].model == "gpt2");
    CHECK(r.cases[1].mode == "inference");
    for (const auto& c : r.cases) {
      CHECK(c.gpu == kDevice);
      CHECK(c.measured_ms > 0);
      CHECK(c.predicted_ms > 0);
    }
  }

  TEST_CASE("tilecast eval-kernels and eval-e2e read the sample folder as it is") {
    std::string csvs;
    for (const auto& p : test::files_in(sample_dir() + "/kernels", ".csv")) csvs += " " + quoted(p);
    const Run k = run_cli("eval-kernels --devices " + quoted(sample_dir() + "/devices") + csvs);
    CHECK(k.code == 0);
    CHECK(k.output.find(kDevice) != std::string::npos);
    CHECK(k.output.find("overall") != std::string::npos);
    // --min-measured-us keeps only rows at or above a latency; the count shrinks, none is an
    // error naming the flag.
    const auto overall_n = [](const std::string& out) {
      const auto at = out.find("overall");
      return at == std::string::npos ? -1 : std::stoi(out.substr(at + 7));
    };
    const Run slow = run_cli("eval-kernels --min-measured-us 50 --devices " +
                             quoted(sample_dir() + "/devices") + csvs);
    CHECK(slow.code == 0);
    CHECK(overall_n(slow.output) > 0);
    CHECK(overall_n(slow.output) < overall_n(k.output));
    const Run none = run_cli("eval-kernels --min-measured-us 1000000000 --devices " +
                             quoted(sample_dir() + "/devices") + csvs);
    CHECK(none.code != 0);
    CHECK(none.output.find("--min-measured-us") != std::string::npos);
    const Run e =
        run_cli("eval-e2e --devices " + quoted(sample_dir() + "/devices") + " --models " +
                quoted(sample_dir() + "/models") + " --labels " + quoted(sample_dir() + "/labels"));
    CHECK(e.code == 0);
    CHECK(e.output.find("bert_base") != std::string::npos);
    CHECK(e.output.find("gpt2") != std::string::npos);
    CHECK(e.output.find("skipped 1 labels with options") != std::string::npos);
    CHECK(e.output.find("note:") == std::string::npos);  // every file found its partner
  }

  TEST_CASE("the kit's torch-free self-checks pass, step profiles compared with the forecast") {
    // scripts/measure/selftest.py: shapes, trace parsing, device JSON, label names and the
    // step profile of --profile-labels (summarised, written, read back and set beside
    // `tilecast forecast` by scripts/profile_vs_forecast.py).
    const std::string repo = test::repo_dir();
    const Run r = test::run_shell("python3 " + quoted(repo + "/scripts/measure/selftest.py") +
                                  " --tilecast " + quoted(test::cli_path()));
    CAPTURE(r.output);
    CHECK(r.code == 0);
    CHECK(r.output.find("ok check_profile (compared with the forecast)") != std::string::npos);
    // A folder without profiles is an error that says what to do.
    const Run none =
        test::run_shell("python3 " + quoted(repo + "/scripts/profile_vs_forecast.py") + " " +
                        quoted(sample_dir()) + " --tilecast " + quoted(test::cli_path()));
    CHECK(none.code != 0);
    CHECK(none.output.find("--profile-labels") != std::string::npos);
  }
}
