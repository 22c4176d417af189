// The AMD Instinct FP32 models (issue 13): the Tensile tile names, the committed weights current
// with the MI100/MI210 data and the trainer, their accuracy per GPU and op under ceilings
// (tests/amd_accuracy_ceilings.inc), the registry choosing them for AMD GPUs only, and the
// caveats naming what was measured (CDNA 1/2) and what is extrapolated (CDNA 3+).
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "kernel/tiles.hpp"
#include "test_paths.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_eval.hpp"
#include "tilecast/train.hpp"

using namespace tilecast;

namespace {

const char* const kAmdGpus[] = {"AMD Instinct MI100", "AMD Instinct MI210"};

// The inputs of its recipe (core/data/models/amd-fp32/manifest.json, "train"), in its order.
std::vector<std::string> training_inputs() { return test::recipe_csvs("amd-fp32"); }

struct Ceiling {
  const char* gpu;
  const char* op;
  double ceiling_pct;
};
// Today's MAPE x 1.05 + 0.5 per (GPU, op) of the shipped model (docs/amd-model.md).
const Ceiling kAmdCeilings[] = {
#include "amd_accuracy_ceilings.inc"
};

}  // namespace

TEST_SUITE("amd_model") {
  TEST_CASE("rocBLAS Tensile kernel names give the macro tile and the split-U") {
    const auto t = gemm_tile_from_kernel_name(
        "Cijk_Alik_Bljk_SB_MT128x160x16_MI32x32x2x1_SE_1LDSB1_GSU3_GSUASB_WG128_2_1_WGM1");
    REQUIRE(t);
    CHECK(t->rows == 128);
    CHECK(t->cols == 160);
    CHECK(t->split == 3);
    const auto u = gemm_tile_from_kernel_name("Cijk_Ailk_Bljk_SB_MT16x8x32_SE_GSU1_WG8_4_4");
    REQUIRE(u);
    CHECK(u->rows == 16);
    CHECK(u->cols == 8);
    CHECK(u->split == 1);
    CHECK_FALSE(gemm_tile_from_kernel_name("Cijk_Ailk_Bljk_SB_noTile"));
    const auto n = gemm_tile_from_kernel_name("ampere_sgemm_128x64_tn");
    REQUIRE(n);
    CHECK(n->rows == 128);
    CHECK(n->split == 1);
  }

  TEST_CASE("the committed AMD weights are current: inputs, trainer config and hash") {
    const auto w = nlohmann::json::parse(
        test::read_file(test::repo_dir() + "/core/data/models/amd-fp32/kernel_weights.json"));
    const std::vector<std::string> expected = training_inputs();
    REQUIRE(w.at("inputs").get<std::vector<std::string>>() == expected);
    std::vector<TrainText> csvs;
    for (const auto& rel : expected)
      csvs.push_back({rel, test::read_file(test::data_dir() + "/" + rel)});
    TrainConfig cfg;
    cfg.seed = w.at("seed").get<std::uint64_t>();
    cfg.row_reference_without_launch = true;  // scripts/train_amd.sh's choice
    CHECK(w.at("epochs").get<int>() == 0);
    CHECK(w.at("max_rows").get<std::int64_t>() == 0);
    CHECK(w.at("config").get<std::string>() == train_config_text(cfg));
    char hex[20];
    std::snprintf(
        hex, sizeof hex, "%016llx",
        static_cast<unsigned long long>(training_hash(csvs, test::dataset_device_files(), cfg)));
    INFO(
        "stale core/data/models/amd-fp32/kernel_weights.json: rerun scripts/train_amd.sh (make "
        "train-amd)");
    CHECK(w.at("hash").get<std::string>() == std::string("fnv1a64:") + hex);
    CHECK(w.at("rows_held_out").get<std::int64_t>() == 0);
    CHECK(w.at("trained_on").get<std::vector<std::string>>() ==
          std::vector<std::string>{kAmdGpus[0], kAmdGpus[1]});
  }

  TEST_CASE("AMD GPUs take the AMD model, NVIDIA GPUs keep theirs") {
    REQUIRE_FALSE(embedded_weights("amd-fp32").families.empty());
    Kernel k;
    k.op = Op::linear;
    k.dims = {1, 2048, 4096, 4096};
    const GpuSpec& mi210 = *lookup_gpu("mi210");
    const GpuSpec& a100 = *lookup_gpu("a100-40gb-pcie");
    const KernelForecast amd = learned_model(mi210, k).forecast(mi210, k);
    const KernelForecast amd_direct =
        LearnedPredictor(embedded_weights("amd-fp32"), embedded_tile_table("amd-fp32"))
            .forecast(mi210, k);
    CHECK(amd.latency_ms == amd_direct.latency_ms);
    const KernelForecast nv = learned_model(a100, k).forecast(a100, k);
    const KernelForecast nv_direct =
        LearnedPredictor(embedded_weights("nvidia-fp32"), embedded_tile_table("nvidia-fp32"))
            .forecast(a100, k);
    CHECK(nv.latency_ms == nv_direct.latency_ms);
  }

  TEST_CASE("every AMD kernel row under its ceiling") {
    const auto devs = test::dataset_devices();
    std::vector<MeasuredKernel> rows;
    for (const auto& rel : training_inputs()) {
      if (rel.find("curated") != std::string::npos) continue;
      auto part = parse_kernel_csv(test::read_file(test::data_dir() + "/" + rel), rel);
      rows.insert(rows.end(), part.begin(), part.end());
    }
    const EvalReport rep = evaluate_kernels(rows, devs, Predictor::tilecast);
    int checked = 0;
    for (const EvalGroup& g : rep.groups) {
      const Ceiling* c = nullptr;
      for (const Ceiling& x : kAmdCeilings)
        if (g.gpu == x.gpu && g.op == x.op) c = &x;
      INFO(g.gpu << " " << g.op << ": " << g.mape_pct << "%");
      REQUIRE(c);
      CHECK(g.mape_pct <= c->ceiling_pct);
      CHECK(g.mape_pct < g.roofline_mape_pct);
      ++checked;
    }
    CHECK(checked == 2 * 15);
  }

  TEST_CASE("caveats: CDNA 1 and 2 measured, CDNA 3 and later extrapolated") {
    const auto joined = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += x + "\n";
      return s;
    };
    const std::string mi210 = joined(forecast_caveats(*lookup_gpu("mi210"), Predictor::tilecast));
    CHECK(mi210.find("extrapolat") == std::string::npos);
    const std::string mi300 = joined(forecast_caveats(*lookup_gpu("mi300x"), Predictor::tilecast));
    CHECK(mi300.find("No CDNA 3 GPU was measured") != std::string::npos);
    CHECK(mi300.find("CDNA and CDNA 2") != std::string::npos);  // MI100 is "CDNA" in the catalog
    const std::string h100 = joined(forecast_caveats(*lookup_gpu("h100-sxm"), Predictor::tilecast));
    CHECK(h100.find("CDNA") == std::string::npos);
  }
}
