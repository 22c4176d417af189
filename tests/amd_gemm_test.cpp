// The analytic AMD FP32 GEMM model (learned/amd_gemm.hpp): its file's errors, the committed
// model current with the data and the fit, the registry serving it for AMD GPUs not measured
// (the measured MI100/MI210 keep the net), and its accuracy on the GPU left out under ceilings
// (docs/amd-model.md, scripts/eval_amd_cross_gpu.sh).
#include "learned/amd_gemm.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "forecast/amd_gemm_predictor.hpp"
#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "test_paths.hpp"
#include "tilecast/amd_gemm_train.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/train.hpp"

using namespace tilecast;

namespace {

const char* const kAmdGemmGpus[] = {"AMD Instinct MI100", "AMD Instinct MI210"};

// The inputs of its recipe (core/data/models/amd-fp32-gemm/manifest.json, "train"), in order.
std::vector<TrainText> gemm_csvs() {
  std::vector<TrainText> out;
  for (const std::string& rel : test::recipe_csvs("amd-fp32-gemm"))
    out.push_back({rel, test::read_file(test::data_dir() + "/" + rel)});
  return out;
}

std::vector<MeasuredKernel> rows_of(const std::vector<TrainText>& csvs) {
  std::vector<MeasuredKernel> rows;
  for (const TrainText& c : csvs) {
    auto part = parse_kernel_csv(c.text, c.name);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

std::string valid_model_text() {
  return test::read_file(test::repo_dir() + "/core/data/models/amd-fp32-gemm/gemm.json");
}

}  // namespace

TEST_SUITE("amd_gemm") {
  TEST_CASE("a malformed model file names the field") {
    CHECK_THROWS_WITH_AS(parse_amd_gemm_model("[1]", "m.json"), doctest::Contains("m.json"), Error);
    auto j = nlohmann::json::parse(valid_model_text());
    CHECK(parse_amd_gemm_model(j.dump(), "m.json").valid());
    auto bad = j;
    bad["form"] = "max(a,b)";
    CHECK_THROWS_WITH_AS(parse_amd_gemm_model(bad.dump(), "m.json"), doctest::Contains("'form'"),
                         Error);
    bad = j;
    bad["ops"].erase("bmm");
    CHECK_THROWS_WITH_AS(parse_amd_gemm_model(bad.dump(), "m.json"), doctest::Contains("ops.bmm"),
                         Error);
    bad = j;
    bad["ops"]["linear"]["compute_scale"] = 0;
    CHECK_THROWS_WITH_AS(parse_amd_gemm_model(bad.dump(), "m.json"),
                         doctest::Contains("ops.linear: field 'compute_scale'"), Error);
    bad = j;
    bad["ops"]["bmm"]["overhead_ms"] = -1;
    CHECK_THROWS_WITH_AS(parse_amd_gemm_model(bad.dump(), "m.json"),
                         doctest::Contains("ops.bmm: field 'overhead_ms'"), Error);
    bad = j;
    bad["ops"]["bmm"]["tile_kcycles"] = "3";
    CHECK_THROWS_WITH_AS(parse_amd_gemm_model(bad.dump(), "m.json"),
                         doctest::Contains("ops.bmm: field 'tile_kcycles'"), Error);
    CHECK_THROWS_AS(
        make_amd_gemm_predictor(AmdGemmModel{}, TileTable{}, std::make_shared<RooflinePredictor>()),
        Error);
    CHECK_THROWS_AS(
        make_amd_gemm_predictor(parse_amd_gemm_model(j.dump(), "m.json"), TileTable{}, nullptr),
        Error);
  }

  TEST_CASE("the committed AMD GEMM model is current with the data and the fit") {
    const auto committed = nlohmann::json::parse(valid_model_text());
    const AmdGemmTrainResult res = train_amd_gemm_model(
        rows_of(gemm_csvs()), test::dataset_devices(),
        test::read_file(test::repo_dir() + "/core/data/models/amd-fp32/tile_table.json"), {},
        "test");
    const auto fresh = nlohmann::json::parse(res.json);
    INFO(
        "stale core/data/models/amd-fp32-gemm/gemm.json: rerun scripts/train_amd.sh (make "
        "train-amd)");
    CHECK(fresh.at("ops") == committed.at("ops"));
    CHECK(fresh.at("config") == committed.at("config"));
    CHECK(fresh.at("trained_on") == committed.at("trained_on"));
  }

  TEST_CASE("unmeasured AMD GPUs take the analytic GEMM model, MI100/MI210 the net") {
    REQUIRE(
        embedded_model_part<AmdGemmModel>("amd-fp32-gemm", "model", parse_amd_gemm_model).valid());
    Kernel k;
    k.op = Op::bmm;
    k.dims = {64, 1024, 128, 1024};
    const LearnedPredictor net(embedded_weights("amd-fp32"), embedded_tile_table("amd-fp32"));
    const auto analytic = make_amd_gemm_predictor(
        embedded_model_part<AmdGemmModel>("amd-fp32-gemm", "model", parse_amd_gemm_model),
        embedded_tile_table("amd-fp32"), std::make_shared<RooflinePredictor>());
    for (const char* id : {"mi100", "mi210"}) {
      const GpuSpec& g = *lookup_gpu(id);
      CHECK(is_measured_gpu(embedded_tile_table("amd-fp32"), g));
      CHECK(learned_model(g, k).forecast(g, k).latency_ms == net.forecast(g, k).latency_ms);
    }
    for (const char* id : {"mi250-gcd", "mi300x", "mi355x"}) {
      const GpuSpec& g = *lookup_gpu(id);
      INFO(id);
      CHECK_FALSE(is_measured_gpu(embedded_tile_table("amd-fp32"), g));
      const KernelForecast f = learned_model(g, k).forecast(g, k);
      CHECK(f.latency_ms == analytic->forecast(g, k).latency_ms);
      CHECK(f.latency_ms >= f.roofline_ms);
      CHECK(std::isfinite(f.latency_ms));
      Kernel add;  // vector ops keep the net
      add.op = Op::add;
      add.dims = {4096, 4096};
      CHECK(learned_model(g, add).forecast(g, add).latency_ms == net.forecast(g, add).latency_ms);
    }
    Kernel gelu;
    gelu.op = Op::gelu;
    gelu.dims = {8, 8};
    CHECK_THROWS_AS(analytic->forecast(*lookup_gpu("mi300x"), gelu), Error);
  }

  // Trained on one GPU (its tile table and fit), forecast the other: today's MAPE x 1.05 + 0.5,
  // rounded up (linear 12.87 / 14.03 %, bmm 18.86 / 25.02 %; scripts/eval_amd_cross_gpu.sh
  // prints the same figures). The 10 % target of issue 13 is not reached (docs/amd-model.md).
  TEST_CASE("across the two GPUs, both ways, under ceilings") {
    struct Case {
      int train, test;
      double linear_pct, bmm_pct;
    };
    const Case cases[] = {{0, 1, 14.1, 20.4}, {1, 0, 15.3, 26.8}};
    const auto devs = test::dataset_devices();
    const std::vector<TrainText> csvs = gemm_csvs();
    const std::vector<MeasuredKernel> rows = rows_of(csvs);
    for (const Case& c : cases) {
      TrainConfig cfg;
      cfg.held_out_devices.push_back(kAmdGemmGpus[c.test]);
      const std::string table_json = build_tile_table(csvs, test::dataset_device_files(), cfg);
      const AmdGemmTrainResult res =
          train_amd_gemm_model(rows, devs, table_json, {kAmdGemmGpus[c.test]}, "test");
      const auto predictor = make_amd_gemm_predictor(parse_amd_gemm_model(res.json, "fit"),
                                                     parse_tile_table(table_json, "table"),
                                                     std::make_shared<RooflinePredictor>());
      double sum[2] = {0, 0};
      int n[2] = {0, 0};
      for (const MeasuredKernel& r : rows) {
        if (r.device != kAmdGemmGpus[c.test]) continue;
        const GpuSpec& g = devs.at(r.device);
        const double ms = predictor->forecast(g, r.kernel).latency_ms;
        const int o = r.kernel.op == Op::bmm ? 1 : 0;
        sum[o] += std::fabs(ms - r.latency_ms) / r.latency_ms;
        ++n[o];
      }
      REQUIRE(n[0] > 1000);
      REQUIRE(n[1] > 2000);
      INFO("train " << std::string(kAmdGemmGpus[c.train]) << ", test "
                    << std::string(kAmdGemmGpus[c.test]));
      CHECK(100.0 * sum[0] / n[0] <= c.linear_pct);
      CHECK(100.0 * sum[1] / n[1] <= c.bmm_pct);
      MESSAGE("linear " << 100.0 * sum[0] / n[0] << " %, bmm " << 100.0 * sum[1] / n[1] << " %");
    }
  }
}
