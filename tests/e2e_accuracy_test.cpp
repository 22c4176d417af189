// Whole-model accuracy over the dataset's measured end-to-end latencies: mean
// absolute error per GPU and mode <= 8% on the training GPUs and on the held-out
// NVIDIA A100 80GB PCIe, and no single case of those GPUs above 20%. What misses a
// target today is listed in e2e_accuracy_gaps.inc with a ceiling, so any
// regression still fails.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "tilecast/e2e_eval.hpp"
#include "tilecast/error.hpp"

using namespace tilecast;

namespace {

const std::set<std::string> kTargetGpus = {"Tesla P4",
                                           "Tesla P100-PCIE-16GB",
                                           "Tesla T4",
                                           "Tesla V100-PCIE-32GB",
                                           "NVIDIA A100-PCIE-40GB",
                                           "NVIDIA A100 80GB PCIe"};

constexpr double kMeanTargetPct = 8.0;
constexpr double kCaseTargetPct = 20.0;

struct E2eGap {
  const char* gpu;
  const char* mode;
  const char* label;  // "model-mode-seq-batch", or "" for the mean of the GPU and mode
  double ceiling_pct;
};
const E2eGap kKnownE2eGaps[] = {
#include "e2e_accuracy_gaps.inc"
};

double ceiling_for(const std::string& gpu, const std::string& mode, const std::string& label,
                   double target) {
  for (const E2eGap& g : kKnownE2eGaps)
    if (gpu == g.gpu && mode == g.mode && label == g.label) return g.ceiling_pct;
  return target;
}

std::vector<E2eInput> shared_labels() {
  namespace fs = std::filesystem;
  const std::string root = test::data_dir();
  std::vector<E2eInput> inputs;
  std::vector<fs::path> dirs;
  for (const auto& d : fs::directory_iterator(root + "/labels"))
    if (d.is_directory()) dirs.push_back(d.path());
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    const std::string spec = root + "/devices/" + dir.filename().string() + ".json";
    if (!test::file_exists(spec)) continue;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir))
      if (f.path().extension() == ".json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const auto name = parse_label_name(f.stem().string());
      if (!name || !name->option.empty()) continue;
      const std::string model = root + "/models/" + name->model + ".json";
      if (!test::file_exists(model)) continue;
      inputs.push_back({f.stem().string(), test::read_file(spec), test::read_file(model),
                        test::read_file(f.string())});
    }
  }
  return inputs;
}

}  // namespace

TEST_SUITE("e2e_accuracy") {
  TEST_CASE("label names") {
    auto n = parse_label_name("gpt2_large-train-1024-4");
    REQUIRE(n);
    CHECK(n->model == "gpt2_large");
    CHECK(n->training);
    CHECK(n->seq == 1024);
    CHECK(n->batch == 4);
    CHECK(n->option.empty());
    CHECK(parse_label_name("gpt3_xl-train-2048-4-pp4_1")->option == "pp4_1");
    CHECK_FALSE(parse_label_name("gpt3_xl-eval-2048-4"));
    CHECK_FALSE(parse_label_name("gpt3_xl-inf-0-4"));
    CHECK_FALSE(parse_label_name("gpt3_xl-inf-x-4"));
  }

  TEST_CASE("training steps by phase: the label's forward and backward beside the forecast's") {
    std::vector<E2eInput> v100;
    for (const E2eInput& in : shared_labels())
      if (in.gpu_json.find("V100-PCIE-32GB") != std::string::npos) v100.push_back(in);
    REQUIRE(v100.size() >= 10);
    const E2eReport r = evaluate_e2e(v100, Predictor::tilecast);
    int training = 0;
    for (const E2eCase& c : r.cases) {
      CAPTURE(c.model);
      CHECK(c.has_phases() == (c.mode == "training"));  // every training label records both
      if (!c.has_phases()) continue;
      ++training;
      CHECK(c.measured_forward_ms + c.measured_backward_ms ==
            doctest::Approx(c.measured_ms).epsilon(0.01));
      CHECK(c.predicted_forward_ms + c.predicted_backward_ms ==
            doctest::Approx(c.predicted_ms).epsilon(1e-9));
      // the V100's phases are both forecast within 5 % today (docs/model-forecast.md)
      CHECK(std::fabs(c.predicted_forward_ms / c.measured_forward_ms - 1) < 0.05);
      CHECK(std::fabs(c.predicted_backward_ms / c.measured_backward_ms - 1) < 0.05);
    }
    CHECK(training == 3);
    const auto j = nlohmann::json::parse(e2e_report_to_json(r));
    for (const auto& c : j.at("cases")) {
      if (c.at("mode") == "inference") {
        CHECK(c.at("phases").is_null());
        continue;
      }
      const auto& fw = c.at("phases").at("forward");
      CHECK(fw.at("error_pct").get<double>() ==
            doctest::Approx(
                100 *
                (fw.at("predicted_ms").get<double>() / fw.at("measured_ms").get<double>() - 1)));
      CHECK(c.at("phases").at("backward").at("measured_ms").get<double>() > 0);
    }

    // a label without its phases has none; a bad phase value is named
    E2eInput in = v100.front();
    for (const E2eInput& x : v100)
      if (x.label_stem.find("-train-") != std::string::npos) in = x;
    in.label_json = R"({"e2e_latency": 300})";
    CHECK_FALSE(evaluate_e2e({in}, Predictor::tilecast).cases.at(0).has_phases());
    in.label_json = R"({"e2e_latency": 300, "fw_latency": -1, "bwall_latency": 200})";
    try {
      evaluate_e2e({in}, Predictor::tilecast);
      FAIL("a negative fw_latency was accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("fw_latency") != std::string::npos);
    }
  }

  TEST_CASE("the roofline is a lower bound: below every measured step and every learned forecast") {
    const auto inputs = shared_labels();
    REQUIRE(inputs.size() >= 60);
    const E2eReport roof = evaluate_e2e(inputs, Predictor::roofline);
    const E2eReport learned = evaluate_e2e(inputs, Predictor::tilecast);
    REQUIRE(roof.cases.size() == inputs.size());
    REQUIRE(learned.cases.size() == inputs.size());
    for (std::size_t i = 0; i < roof.cases.size(); ++i) {
      const E2eCase& c = roof.cases[i];
      CAPTURE(c.gpu);
      CAPTURE(c.model);
      CHECK(std::isfinite(c.predicted_ms));
      CHECK(c.predicted_ms > 0);
      // No GPU runs a model faster than its compute and memory traffic allow.
      CHECK(c.predicted_ms <= c.measured_ms);
      // Every learned kernel forecast is bounded below by its roofline.
      CHECK(c.predicted_ms <= learned.cases[i].predicted_ms);
      // The learned run reports the same roofline beside its forecast.
      CHECK(learned.cases[i].roofline_ms == doctest::Approx(c.predicted_ms).epsilon(1e-12));
    }
  }

  TEST_CASE("learned predictor meets the end-to-end targets") {
    const E2eReport r = evaluate_e2e(shared_labels(), Predictor::tilecast);
    for (const auto& s : r.summary) {
      std::printf("  %-24s %-9s n=%2d  MAE %5.1f%%  (roofline %5.1f%%)  max %5.1f%%\n",
                  s.gpu.c_str(), s.mode.c_str(), s.n, s.mean_abs_error_pct,
                  s.roofline_mean_abs_error_pct, s.max_abs_error_pct);
      if (!kTargetGpus.count(s.gpu)) continue;
      CAPTURE(s.gpu);
      CAPTURE(s.mode);
      CHECK(s.mean_abs_error_pct <= ceiling_for(s.gpu, s.mode, "", kMeanTargetPct));
    }
    for (const auto& c : r.cases) {
      if (!kTargetGpus.count(c.gpu)) continue;
      CAPTURE(c.gpu);
      CAPTURE(c.model);
      CAPTURE(c.mode);
      CAPTURE(c.batch);
      const std::string label =
          c.model + "-" + c.mode + "-" + std::to_string(c.seq) + "-" + std::to_string(c.batch);
      CHECK(std::fabs(c.error_pct) <= ceiling_for(c.gpu, c.mode, label, kCaseTargetPct));
    }
  }
}
