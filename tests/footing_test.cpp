// Every forecast response's "footing" (issue 32): decided once (tilecast/footing.hpp) from the
// learned models' manifests and the kernels forecast by the roofline, and agreeing with the
// caveats that say the same in sentences (the page read it from them before).
#include "tilecast/footing.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tilecast/api.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

nlohmann::json call(std::string (*f)(std::string_view), const std::string& req) {
  return nlohmann::json::parse(f(req));
}

bool caveat_starts(const nlohmann::json& j, const std::string& head) {
  for (const auto& c : j["caveats"])
    if (c.get<std::string>().rfind(head, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_SUITE("footing") {
  TEST_CASE("names, weakest first") {
    CHECK(footing_name(Footing::roofline) == "roofline");
    CHECK(footing_name(Footing::transferred) == "transferred");
    CHECK(footing_name(Footing::partly_roofline) == "partly_roofline");
    CHECK(footing_name(Footing::learned) == "learned");
    CHECK(Footing::roofline < Footing::transferred);
    CHECK(Footing::partly_roofline < Footing::learned);
  }

  TEST_CASE("from the measured GPUs and the predictor") {
    // the A100 was measured; Hopper and CDNA 3 were not (the page's compare test)
    CHECK(forecast_footing(find_gpu("a100-80gb-sxm"), Predictor::tilecast, DataType::fp32, false) ==
          Footing::learned);
    CHECK(forecast_footing(find_gpu("a100-80gb-sxm"), Predictor::tilecast, DataType::fp32, true) ==
          Footing::partly_roofline);
    CHECK(forecast_footing(find_gpu("h100-sxm"), Predictor::tilecast, DataType::fp32, false) ==
          Footing::transferred);
    CHECK(forecast_footing(find_gpu("mi300x"), Predictor::tilecast, DataType::fp32, false) ==
          Footing::transferred);
    for (const char* g : {"a100-80gb-sxm", "h100-sxm", "mi300x"})
      CHECK(forecast_footing(find_gpu(g), Predictor::roofline, DataType::fp32, true) ==
            Footing::roofline);
    // a GPU naming no architecture: whether it was measured is unknown, an extrapolation
    GpuSpec custom = find_gpu("a100-80gb-sxm");
    custom.architecture.clear();
    custom.name = "custom accelerator";
    CHECK(forecast_footing(custom, Predictor::tilecast, DataType::fp32, false) ==
          Footing::transferred);
  }

  TEST_CASE("every forecast response carries it, agreeing with its caveats") {
    for (const char* gpu : {"a100-80gb-sxm", "h100-sxm", "mi300x", "l4"})
      for (const char* predictor : {"tilecast", "roofline"}) {
        CAPTURE(gpu);
        CAPTURE(predictor);
        const std::string head = std::string(R"({"gpu":")") + gpu + R"(","predictor":")" +
                                 predictor + R"(","model":"gpt2")";
        const auto model = call(api::forecast_model, head + R"(,"batch":1,"seq":128})");
        const auto serve =
            call(api::forecast_serving, head + R"(,"prompt":128,"output":16,"batch":1})");
        for (const auto* j : {&model, &serve}) {
          REQUIRE(j->contains("footing"));
          const std::string f = (*j)["footing"];
          if (std::string(predictor) == "roofline") {
            CHECK(f == "roofline");
            continue;
          }
          // the page's former reading of the caveats, for the unmeasured GPUs
          const bool unmeasured_architecture =
              caveat_starts(*j, "No ") &&
              (*j)["caveats"].dump().find("GPU was measured") != std::string::npos;
          const bool extrapolated = unmeasured_architecture ||
                                    caveat_starts(*j, "The learned kernel models were trained on");
          if (extrapolated) CHECK(f == "transferred");
          if (f == "learned") {
            CHECK(!extrapolated);
            CHECK(!caveat_starts(*j, "Transferred model"));
          }
        }
      }
    // parallel and megatron training responses too
    const auto par = call(api::forecast_model, R"({"gpu":"a100-40gb-sxm","model":"gpt2-large",
      "batch":8,"seq":512,"mode":"training","gpus":2,"system":"dgx-a100"})");
    const auto single = call(api::forecast_model, R"({"gpu":"a100-40gb-sxm","model":"gpt2-large",
      "batch":4,"seq":512,"mode":"training"})");
    CHECK(par["footing"] == single["footing"]);
    CHECK(par["footing"] != "transferred");
    const auto meg = call(api::forecast_model, R"({"gpu":"h100-sxm","model":"llama2-7b",
      "batch":8,"seq":1024,"mode":"training","precision":"bf16","engine":"megatron","gpus":8,
      "tp":2,"system":"dgx-h100"})");
    CHECK(meg["footing"] == "transferred");
  }
}
