// The generalization protocol: band fitting and coverage on known residuals, the report's
// shape, one tiny fold run in-process through the protocol's code path (its held-out GPU
// never trained on), and the committed report, bands and accuracy table (docs/accuracy.md) current.
#include "tilecast/generalization.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "eval/band_fit.hpp"
#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "learned/tile_table.hpp"
#include "learned/weights.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/kernel_csv.hpp"
#include "tilecast/kernel_forecast.hpp"

using namespace tilecast;

namespace {

namespace fs = std::filesystem;

// The labels of one device folder of the dataset (options left out).
std::vector<E2eInput> labels_of(const std::string& device_stem) {
  std::vector<std::string> stems;
  for (const auto& e : fs::directory_iterator(test::data_dir() + "/labels/" + device_stem))
    if (e.path().extension() == ".json") stems.push_back(e.path().stem().string());
  std::sort(stems.begin(), stems.end());
  std::vector<E2eInput> out;
  const std::string gpu = test::read_file(test::data_dir() + "/devices/" + device_stem + ".json");
  for (const auto& s : stems) {
    const auto name = parse_label_name(s);
    if (!name || !name->option.empty()) continue;
    out.push_back(
        {s, gpu, test::read_file(test::data_dir() + "/models/" + name->model + ".json"),
         test::read_file(test::data_dir() + "/labels/" + device_stem + "/" + s + ".json")});
  }
  return out;
}

// A fold whose residuals r = ln(measured / forecast) are `r` on 1 ms linear kernels, plus
// `small` rows of 0.01 ms forecasts, and whole-model cases with the given errors.
FoldRun synthetic_fold(const std::string& name, const std::vector<double>& r, int small,
                       const std::vector<double>& e2e_ratio, const std::string& mode) {
  FoldRun run;
  run.fold = {name, {"GPU " + name}, true, true};
  for (double x : r) run.kernels.push_back({"GPU " + name, Op::linear, std::exp(x), 1.0, 0.5});
  for (int i = 0; i < small; ++i)
    run.kernels.push_back({"GPU " + name, Op::add, 0.02, 0.01, 0.005});
  for (double q : e2e_ratio) {
    E2eCase c;
    c.gpu = "GPU " + name;
    c.model = "m";
    c.mode = mode;
    c.measured_ms = 100 * q;
    c.predicted_ms = 100;
    c.error_pct = 100 * (c.predicted_ms - c.measured_ms) / c.measured_ms;
    c.roofline_ms = 50;
    c.roofline_error_pct = 100 * (c.roofline_ms - c.measured_ms) / c.measured_ms;
    run.e2e.push_back(c);
  }
  return run;
}

using test::evenly;

}  // namespace

TEST_SUITE("generalization") {
  TEST_CASE("bands: per family and size class, one architecture per fold, pooled when sparse") {
    // Fold A: GEMM residuals evenly from -0.5 to +0.5 (201 rows, forecasts of 1 ms: class
    // 0.5-5 ms); 10 element-wise rows (too few for their class: the family's pooled band).
    const std::vector<FoldRun> runs = {
        synthetic_fold("A", evenly(-0.5, 0.5, 201), 10, {0.9, 1.0, 1.1}, "training"),
        synthetic_fold("B", evenly(0.0, 1.0, 101), 0, {1.2, 1.3}, "inference")};
    const ErrorBands all = fit_error_bands(runs);
    REQUIRE(all.class_edges_ms == std::vector<double>{0.05, 0.5, 5});
    CHECK(all.size_class(0.01) == 0);
    CHECK(all.size_class(0.05) == 1);
    CHECK(all.size_class(1.0) == 2);
    CHECK(all.size_class(50) == 3);
    const ErrorBand* g = all.kernel_band("gemm", 1.0);
    REQUIRE(g != nullptr);
    CHECK(g->n == 302);
    // the two folds are two architectures of the random-effects band (band_fit_test.cpp)
    const ErrorBand expected = fit_architecture_band({evenly(-0.5, 0.5, 201), evenly(0, 1, 101)});
    CHECK(g->low == doctest::Approx(expected.low));
    CHECK(g->high == doctest::Approx(expected.high));
    // wider than the residuals' own 10th-90th percentiles (-0.4 .. 0.8 pooled): a third
    // architecture may sit beyond both
    CHECK(std::log(g->low) < -0.4);
    CHECK(std::log(g->high) > 0.8);
    // the GEMM family's other classes hold no residuals: its pooled band
    CHECK(all.kernel_band("gemm", 0.01)->n == 302);
    // element-wise: 10 rows in one class, below the 50 needed: pooled (the same 10)
    const ErrorBand* e = all.kernel_band("elementwise", 0.01);
    REQUIRE(e != nullptr);
    CHECK(e->n == 10);
    CHECK(e->low == doctest::Approx(2.0));
    CHECK(all.kernel_band("softmax", 1.0) == nullptr);
    // whole models: 3 training and 2 inference cases, each under 5: both modes pooled
    REQUIRE(all.model_band(Mode::training) != nullptr);
    CHECK(all.model_band(Mode::training)->n == 5);
    const ErrorBand models =
        fit_architecture_band({{std::log(0.9), 0, std::log(1.1)}, {std::log(1.2), std::log(1.3)}});
    CHECK(all.model_band(Mode::training)->high == doctest::Approx(models.high));
    CHECK(all.model_band(Mode::decode) == all.model_band(Mode::inference));

    // leaving A out fits B alone: one architecture, its own 10th and 90th percentiles
    const ErrorBands without_a = fit_error_bands(runs, "A");
    CHECK(without_a.kernel_band("gemm", 1.0)->n == 101);
    CHECK(std::log(without_a.kernel_band("gemm", 1.0)->low) == doctest::Approx(0.1));
    CHECK(std::log(without_a.kernel_band("gemm", 1.0)->high) == doctest::Approx(0.9));
    CHECK(without_a.kernel_band("elementwise", 0.01) == nullptr);

    // the bands survive their file format
    ErrorBands tagged = all;
    tagged.protocol_hash = "fnv1a64:0";
    const ErrorBands back = parse_error_bands(error_bands_to_json(tagged, "test"), "bands");
    CHECK(back.protocol_hash == "fnv1a64:0");
    CHECK(back.kernel_band("gemm", 1.0)->low == doctest::Approx(g->low).epsilon(1e-3));
    CHECK(back.model_band(Mode::training)->n == 5);
  }

  TEST_CASE("bands: a size class that some fold has no residuals in takes the pooled band") {
    std::vector<FoldRun> runs = {synthetic_fold("A", evenly(-0.5, 0.5, 201), 0, {1.0}, "inference"),
                                 synthetic_fold("B", evenly(0.0, 1.0, 101), 0, {1.1}, "inference")};
    // fold B alone has GEMMs forecast at 10 ms (60, measured 1.2x): enough for a class, but
    // one architecture says nothing of the spread between architectures
    for (int i = 0; i < 60; ++i) runs[1].kernels.push_back({"GPU B", Op::bmm, 12.0, 10.0, 5.0});
    const ErrorBands b = fit_error_bands(runs);
    CHECK(b.kernel_band("gemm", 1.0)->n == 302);   // both folds: its own class
    CHECK(b.kernel_band("gemm", 10.0)->n == 362);  // B only: the family's pooled band
    std::vector<double> b_all = evenly(0.0, 1.0, 101);
    b_all.insert(b_all.end(), 60, std::log(1.2));
    const ErrorBand pooled = fit_architecture_band({evenly(-0.5, 0.5, 201), b_all});
    CHECK(b.kernel_band("gemm", 10.0)->high == doctest::Approx(pooled.high));
    CHECK(b.kernel_band("gemm", 0.01)->high == doctest::Approx(pooled.high));
  }

  TEST_CASE("the report: per fold and op group, signed means, cross-validated coverage") {
    std::vector<FoldRun> runs = {
        synthetic_fold("A", evenly(-0.5, 0.5, 201), 60, {0.9, 1.0, 1.1, 1.05, 0.95}, "training"),
        synthetic_fold("B", evenly(0.0, 1.0, 101), 60, {1.2, 1.3, 1.1, 1.0, 1.4}, "inference")};
    FoldRun full = synthetic_fold("C", evenly(0.2, 0.3, 11), 0, {1.0}, "inference");
    full.fold.retrain = false;
    full.fold.fits_bands = false;
    runs.push_back(full);
    // three of A's five training steps record their phases: forward forecast 20 % short,
    // backward 10 % long
    for (int i = 0; i < 3; ++i) {
      E2eCase& c = runs[0].e2e[std::size_t(i)];
      c.measured_forward_ms = 0.4 * c.measured_ms;
      c.measured_backward_ms = 0.6 * c.measured_ms;
      c.predicted_forward_ms = 0.8 * c.measured_forward_ms;
      c.predicted_backward_ms = 1.1 * c.measured_backward_ms;
    }
    TrainConfig cfg;
    const std::string report = generalization_report_json(runs, cfg, "fnv1a64:1", "x");
    const auto j = nlohmann::json::parse(report);
    REQUIRE(j.at("folds").size() == 3);
    const auto& phases = j["folds"][0]["e2e"][0]["phases"];
    CHECK(phases["n"] == 3);
    CHECK(phases["forward_signed_mean_pct"].get<double>() == doctest::Approx(-20));
    CHECK(phases["backward_signed_mean_pct"].get<double>() == doctest::Approx(10));
    CHECK_FALSE(j["folds"][1]["e2e"][0].contains("phases"));  // inference: none
    const auto& b = j["folds"][1];
    CHECK(b["name"] == "B");
    // B's kernels: linear (measured slower than forecast: signed mean < 0) and element-wise
    // (measured 2x the forecast: -50%)
    bool linear = false, elementwise = false;
    for (const auto& g : b["kernels"]) {
      if (g["group"] == "linear") {
        linear = true;
        CHECK(g["n"] == 101);
        CHECK(g["signed_mean_pct"].get<double>() < -30);
      }
      if (g["group"] == "elementwise") {
        elementwise = true;
        CHECK(g["signed_mean_pct"].get<double>() == doctest::Approx(-50));
        CHECK(g["mape_pct"].get<double>() == doctest::Approx(50));
      }
    }
    CHECK(linear);
    CHECK(elementwise);
    REQUIRE(b["e2e"].size() == 1);
    CHECK(b["e2e"][0]["mode"] == "inference");
    CHECK(b["e2e"][0]["n"] == 5);
    // B's bands come from A alone: A's GEMM band spans exp(-0.4)..exp(0.4), so B's residuals
    // 0..0.4 (41 of 101) are inside; its element-wise rows (r = ln 2) sit on A's band edge
    CHECK(b["bands"]["fitted_on"] == "the other 1 retrained folds");
    CHECK(b["bands"]["kernel_n"] == 161);
    CHECK(b["bands"]["kernel_inside_pct"].get<double>() ==
          doctest::Approx(100.0 * (41 + 60) / 161).epsilon(0.01));
    CHECK(j["folds"][2]["bands"]["fitted_on"] == "all 2 retrained folds");
    CHECK(j["folds"][2]["bands"]["kernel_inside_pct"].get<double>() == 100);
    CHECK(j["error_bands"]["protocol_hash"] == "fnv1a64:1");
    const std::string md = generalization_markdown(j.dump());
    CHECK(md.find("| B | GPU B | 161 |") != std::string::npos);
    CHECK(md.find("| C | all 2 retrained folds |") != std::string::npos);
    CHECK(md.find("| -20.0 / +10.0 (n 3) |") != std::string::npos);

    // the residual file round-trips exactly
    const std::string text = fold_runs_to_json(runs, "fnv1a64:1");
    CHECK(fold_runs_hash(text) == "fnv1a64:1");
    const std::vector<FoldRun> back = fold_runs_from_json(text, "runs");
    CHECK(generalization_report_json(back, cfg, "fnv1a64:1", "x") == report);
  }

  TEST_CASE("smoke: one tiny fold in-process; its GPU is never trained on, then the full model") {
    GeneralizationInputs in;
    for (const char* op : {"linear", "add", "softmax", "ln"})
      for (const char* gpu : {"Tesla T4", "Tesla P100-PCIE-16GB"})
        in.train_csvs.push_back(
            test::dataset_file(std::string("nvidia/kernels/train/") + op + "/" + gpu + ".csv"));
    in.train_devices = test::dataset_device_files();
    in.eval_devices = in.train_devices;
    for (const char* f : {"bmm", "linear", "vec"})
      in.kernel_csvs.push_back(
          test::dataset_file(std::string("nvidia/kernels/test/") + f + ".csv"));
    in.labels = labels_of("Tesla_T4");
    const std::vector<GeneralizationFold> folds = {
        {"Turing", {"Tesla T4"}, true, true},
        {"unseen A100 80GB", {"NVIDIA A100 80GB PCIe"}, false, false}};
    TrainConfig cfg;
    cfg.epochs = 2;
    cfg.max_rows = 300;
    std::vector<std::string> lines;
    const std::vector<FoldRun> runs =
        run_generalization(in, folds, cfg, [&](const std::string& l) { lines.push_back(l); });
    REQUIRE(runs.size() == 2);
    CHECK(!lines.empty());

    const FoldRun& t4 = runs[0];
    CHECK(t4.trained_on == std::vector<std::string>{"Tesla P100-PCIE-16GB"});
    CHECK(t4.rows_held_out > 0);
    std::vector<MeasuredKernel> t4_rows;  // in the order the fold evaluated them
    for (const TrainText& c : in.kernel_csvs)
      for (MeasuredKernel& r : parse_kernel_csv(c.text, c.name))
        if (r.device == "Tesla T4") t4_rows.push_back(std::move(r));
    REQUIRE(t4.kernels.size() == t4_rows.size());
    std::set<std::string> ops;
    for (const KernelResidual& k : t4.kernels) {
      CHECK(k.gpu == "Tesla T4");
      ops.insert(std::string(op_name(k.op)));
    }
    CHECK(ops.count("bmm") == 1);
    CHECK(ops.count("ln") == 1);
    CHECK(t4.e2e.size() == in.labels.size());
    // The fold's weights forecast its rows; afterwards the embedded weights are back.
    std::map<std::string, GpuSpec> devices;
    for (const TrainText& d : in.eval_devices) {
      const GpuSpec g = parse_gpu_spec(d.text, d.name);
      devices.emplace(g.name, g);
    }
    const LearnedPredictor embedded(embedded_weights("nvidia-fp32"),
                                    embedded_tile_table("nvidia-fp32"));
    const GpuSpec& t4_gpu = devices.at("Tesla T4");
    std::size_t differ = 0, misplaced = 0;
    for (std::size_t i = 0; i < t4_rows.size(); ++i) {
      misplaced += t4.kernels[i].measured_ms != t4_rows[i].latency_ms;
      differ +=
          t4.kernels[i].predicted_ms != embedded.forecast(t4_gpu, t4_rows[i].kernel).latency_ms;
    }
    CHECK(misplaced == 0);
    CHECK(differ > t4_rows.size() / 2);  // the tiny fold's weights, not the embedded ones
    const Kernel k = t4_rows.front().kernel;
    CHECK(forecast_kernel(t4_gpu, k).latency_ms == embedded.forecast(t4_gpu, k).latency_ms);

    const FoldRun& a100 = runs[1];
    CHECK(a100.trained_on == embedded_weights("nvidia-fp32").trained_on);
    CHECK(a100.rows_trained == 0);
    CHECK(!a100.kernels.empty());

    const auto j = nlohmann::json::parse(generalization_report_json(runs, cfg, "h", "smoke"));
    REQUIRE(j["folds"].size() == 2);
    std::set<std::string> groups;
    for (const auto& g : j["folds"][0]["kernels"]) groups.insert(g["group"]);
    CHECK(groups == std::set<std::string>{"bmm", "linear", "elementwise", "softmax", "layernorm"});
    CHECK(j["folds"][0]["e2e"][0]["gpu"] == "Tesla T4");
    CHECK(j["folds"][0]["bands"]["kernel_n"].get<int>() == int(t4.kernels.size()));

    // A full-model fold of a GPU the full model was trained on is refused.
    CHECK_THROWS_WITH_AS(run_generalization(in, {{"bad", {"Tesla T4"}, false, false}}, cfg),
                         doctest::Contains("trained on Tesla T4"), Error);
    // The hash changes with the folds and the trainer settings.
    CHECK(generalization_hash(in, folds, cfg) != generalization_hash(in, {folds[0]}, cfg));
    TrainConfig other = cfg;
    other.seed = 2;
    CHECK(generalization_hash(in, folds, cfg) != generalization_hash(in, folds, other));
  }

  TEST_CASE("the committed report, bands and accuracy table (docs/accuracy.md) are current") {
    const auto report = test::read_file(test::repo_dir() + "/docs/generalization.json");
    const auto j = nlohmann::json::parse(report);
    const test::CliRun hash =
        test::run_shell("cd '" + test::repo_dir() + "' && TILECAST_CLI='" + test::cli_path() +
                        "' TILECAST_DATA_DIR='" + test::data_dir() +
                        "' bash scripts/eval_generalization.sh --hash-only");
    REQUIRE(hash.code == 0);
    INFO("stale docs/generalization.json: rerun make eval-generalization (then rebuild)");
    CHECK(hash.output == j.at("hash").get<std::string>() + "\n");
    CHECK(j.at("command") == "make eval-generalization");
    const auto bands_text = test::read_file(test::repo_dir() + "/core/data/error_bands.json");
    const auto bands = nlohmann::json::parse(bands_text);
    CHECK(bands.at("protocol_hash") == j.at("hash"));
    CHECK(bands.at("kernel") == j.at("error_bands").at("kernel"));
    CHECK(bands.at("model") == j.at("error_bands").at("model"));
    CHECK(embedded_error_bands().protocol_hash == j.at("hash").get<std::string>());
    const std::string readme = test::read_file(test::repo_dir() + "/docs/accuracy.md");
    const std::string begin = "<!-- generalization:begin -->\n",
                      end = "<!-- generalization:end -->";
    const std::size_t b = readme.find(begin), e = readme.find(end);
    REQUIRE(b != std::string::npos);
    REQUIRE(e != std::string::npos);
    CHECK(readme.substr(b + begin.size(), e - b - begin.size()) == generalization_markdown(report));
    // the retrained folds never saw their GPUs
    for (const auto& f : j.at("folds")) {
      const auto gpus = f.at("gpus").get<std::vector<std::string>>();
      for (const auto& t : f.at("trained_on"))
        CHECK(std::find(gpus.begin(), gpus.end(), t) == gpus.end());
    }
  }
}
