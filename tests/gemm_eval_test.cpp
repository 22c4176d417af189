// A transfer's measured time multiple (forecast/model_registry.hpp, ModelManifest::Transfer):
// the committed multiple is what the published rows give today (tilecast eval-gemms), every
// forecast of the transfer carries it and no other model's does, and bad rows or manifests name
// the field.
#include "tilecast/gemm_eval.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "forecast/model_registry.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"

using namespace tilecast;

namespace {

const std::string kRows = "data/published/gemm-kernels.json";

Kernel gemm(DataType t, std::int64_t m = 4096) {
  const std::int64_t dims[] = {1, m, 4096, 4096};
  return make_kernel(Op::linear, dims, 4, t);
}

std::string eval_error(const std::string& text) {
  try {
    evaluate_published_gemms(text, "g.json");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_SUITE("gemm_eval") {
  TEST_CASE("each transfer's time multiple is what the published rows give today") {
    const GemmEvalReport rep =
        evaluate_published_gemms(test::read_file(test::repo_dir() + "/" + kRows), kRows);
    int carried = 0;
    for (const GemmEvalGroup& g : rep.groups) {
      INFO(g.vendor << " " << g.precision << ": rerun tilecast eval-gemms --file " << kRows
                    << " and set the transfer's time_multiple");
      CHECK(g.rows >= 8);
      if (!g.carried) {  // rows a transfer does not take its multiple from (its note says why)
        CHECK(g.time_multiple_in_use == 1);
        continue;
      }
      ++carried;
      CHECK(g.time_multiple_in_use == doctest::Approx(g.time_multiple_measured));
      CHECK(g.median_abs_error_pct_with <= g.median_abs_error_pct_without);
    }
    CHECK(carried >= 1);
    // every transfer that carries a multiple names the command that recomputes it
    for (const ModelManifest& m : embedded_manifests())
      for (const auto& t : m.transfers)
        if (t.time_multiple != 1) CHECK(t.calibration.find(kRows) != std::string::npos);
  }

  TEST_CASE("the NVFP4 transfer's forecasts carry its multiple; other models' do not") {
    const GpuSpec& b200 = find_gpu("b200");
    const double multiple = transfer_time_multiple(b200, gemm(DataType::fp4));
    CHECK(multiple > 1);
    for (std::int64_t m : {1, 256, 4096}) {
      const Kernel k = gemm(DataType::fp4, m);
      const double bare = embedded_model("nvidia-half-gemm")->forecast(b200, k).latency_ms;
      CHECK(learned_model(b200, k).forecast(b200, k).latency_ms ==
            doctest::Approx(multiple * bare).epsilon(1e-12));
    }
    CHECK(transfer_time_multiple(b200, gemm(DataType::bf16)) == 1);  // its own model
    CHECK(transfer_time_multiple(b200, gemm(DataType::fp8)) == 1);   // a transfer without one
    CHECK(transfer_time_multiple(find_gpu("mi355x"), gemm(DataType::fp4)) == 1);  // AMD's
  }

  TEST_CASE("a malformed row or transfer names the field and what is allowed") {
    const std::string source = R"("sources": {"s": {"url": "u"}})";
    auto row = [&](const std::string& fields) {
      return "{" + source + R"(, "rows": [{"id": "r", "source": "s", "gpu": "b200", )" +
             R"("precision": "fp4", "m": 64, "n": 64, "k": 64)" + fields + "}]}";
    };
    CHECK(eval_error(row(R"(, "us": 5)")).empty());
    CHECK(eval_error(row("")).find("g.json: row r: give the measurement as one of 'us'") !=
          std::string::npos);
    CHECK(eval_error(row(R"(, "us": 5, "tflops": 1)")).find("one of 'us'") != std::string::npos);
    CHECK(eval_error(row(R"(, "us": -5)")).find("'us'") != std::string::npos);
    CHECK(eval_error(row(R"(, "us": 5, "m": 0)")).find("'m'") != std::string::npos);
    CHECK(eval_error("{" + source + R"(, "rows": []})").find("field 'rows'") != std::string::npos);
    CHECK(eval_error("{" + source + R"(, "rows": [{"id": "r", "source": "t", "gpu": "b200",)" +
                     R"( "precision": "fp4", "m": 1, "n": 1, "k": 1, "us": 1}]})")
              .find("no source 't'") != std::string::npos);
    CHECK(!eval_error(R"({"rows": []})").empty());

    auto manifest = nlohmann::json::parse(
        test::read_file(test::repo_dir() + "/core/data/models/nvidia-half-gemm/manifest.json"));
    auto manifest_error = [](const nlohmann::json& v) {
      try {
        parse_model_manifest(v.dump(), "m.json");
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(manifest_error(manifest).empty());
    int scaled = 0;
    for (std::size_t i = 0; i < manifest["transfers"].size(); ++i) {
      if (!manifest["transfers"][i].contains("time_multiple")) continue;
      ++scaled;
      auto bad = manifest;
      bad["transfers"][i]["time_multiple"] = 50;
      CHECK(manifest_error(bad).find("field 'transfers': field 'time_multiple'") !=
            std::string::npos);
      bad = manifest;
      bad["transfers"][i].erase("calibration");
      CHECK(manifest_error(bad).find("'calibration'") != std::string::npos);
    }
    CHECK(scaled == 1);
  }
}
