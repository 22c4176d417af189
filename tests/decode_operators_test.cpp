// A static serving forecast's `decode_operators` (serve/decode_operators.hpp): the fused
// engine's kernels of the first decode step, their times adding up to that step but for its
// all-reduces and sampler, each row on its own roofline; none for the eager engine.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tilecast/api.hpp"

using namespace tilecast;

namespace {

nlohmann::json serve(const std::string& gpu, const std::string& model, int batch, int tp = 1,
                     const std::string& engine = "fused") {
  const nlohmann::json req = {{"gpu", gpu},  {"model", model},  {"prompt", 1500},
                              {"output", 2}, {"batch", batch},  {"precision", "bf16"},
                              {"tp", tp},    {"engine", engine}};
  return nlohmann::json::parse(api::forecast_serving(req.dump()));
}

double rows_ms(const nlohmann::json& rows) {
  double ms = 0;
  for (const auto& r : rows) ms += r["time_ms"].get<double>();
  return ms;
}

}  // namespace

TEST_SUITE("decode-operators") {
  TEST_CASE("the rows add up to the first decode step, its sampler and all-reduces apart") {
    const nlohmann::json one = serve("h100-sxm", "llama3-8b", 64);
    REQUIRE(one.contains("decode_operators"));
    const double step_ms = one["decode_ms_at"]["1500"].get<double>();
    const double kernels_ms = rows_ms(one["decode_operators"]);
    CHECK(kernels_ms < step_ms);
    CHECK(kernels_ms > 0.95 * step_ms);  // at TP 1 only the sampler's pass is not a row
    double share = 0;
    for (const auto& r : one["decode_operators"]) {
      CHECK(r["phase"] == "forward");
      CHECK(r["share"].get<double>() == doctest::Approx(r["time_ms"].get<double>() / step_ms));
      share += r["share"].get<double>();
    }
    CHECK(share == doctest::Approx(kernels_ms / step_ms));
    // at TP 2 a GPU's kernels do about half the work; the two all-reduces a layer are the
    // step's, no kernel row's
    const nlohmann::json two = serve("h100-sxm", "llama3-8b", 64, 2);
    const double two_step_ms = two["decode_ms_at"]["1500"].get<double>();
    CHECK(rows_ms(two["decode_operators"]) < rows_ms(one["decode_operators"]));
    CHECK(rows_ms(two["decode_operators"]) < 0.95 * two_step_ms);
  }

  TEST_CASE("a decode step's weight GEMMs read-bound, packed experts at 113 rows compute-bound") {
    const nlohmann::json llama = serve("h100-sxm", "llama3-8b", 8);
    for (const auto& r : llama["decode_operators"])
      if (r["kernel"] == "linear") {
        CAPTURE(r["name"].get<std::string>());
        CHECK(r["bound"] == "memory");
      }
    // gpt-oss-20b's MXFP4 experts on an H200 at 900 sequences: the packed read leaves them
    // compute-bound, and the row says so (the forecast at or above that bound: kernel_times)
    int experts = 0;
    const nlohmann::json gpt_oss = serve("h200", "gpt-oss-20b", 900);
    for (const auto& r : gpt_oss["decode_operators"])
      if (r["name"].get<std::string>().find("(mxfp4 weights)") != std::string::npos) {
        ++experts;
        CHECK(r["bound"] == "compute");
      }
    CHECK(experts > 0);
  }

  TEST_CASE("the eager engine's step has host gaps no operator owns: no rows") {
    CHECK_FALSE(serve("h100-sxm", "llama3-8b", 8, 1, "eager").contains("decode_operators"));
  }
}
