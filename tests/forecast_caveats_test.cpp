// Caveats: a learned forecast says when its GPU's vendor or architecture was never
// measured for training; the roofline and the measured families say nothing.
#include "tilecast/forecast_caveats.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "learned/weights.hpp"
#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

nlohmann::json forecast(const std::string& gpu, const std::string& predictor) {
  nlohmann::json r;
  r["gpu"] = gpu;
  r["model"] = "bert-large";
  r["batch"] = 1;
  r["seq"] = 128;
  r["mode"] = "inference";
  r["predictor"] = predictor;
  return nlohmann::json::parse(api::forecast_model(r.dump()));
}

}  // namespace

TEST_SUITE("caveats") {
  TEST_CASE("the weights list the training GPUs, all in the catalog") {
    const auto& trained_on = embedded_kernel_weights().trained_on;
    REQUIRE(trained_on.size() == 5);
    for (const std::string& name : trained_on) {
      INFO(name);
      CHECK(lookup_gpu(name) != nullptr);
    }
  }

  TEST_CASE("a measured architecture has none; a new one or another vendor has one") {
    for (const char* id : {"a100-80gb-pcie", "v100-sxm", "t4", "p4", "a10"}) {
      INFO(id);
      CHECK(forecast_caveats(find_gpu(id), Predictor::tilecast).empty());
    }
    const auto h100 = forecast_caveats(find_gpu("h100-sxm"), Predictor::tilecast);
    REQUIRE(h100.size() == 1);
    CHECK(h100[0].find("No Hopper GPU was measured") != std::string::npos);
    const auto mi300x = forecast_caveats(find_gpu("mi300x"), Predictor::tilecast);
    REQUIRE(mi300x.size() == 1);
    CHECK(mi300x[0].find("trained on NVIDIA GPUs only") != std::string::npos);
    CHECK(forecast_caveats(find_gpu("mi300x"), Predictor::roofline).empty());
  }

  TEST_CASE("a dataset device file takes its architecture from the catalog") {
    const GpuSpec a100 = parse_gpu_spec(
        test::read_file(test::data_dir() + "/devices/NVIDIA_A100_80GB_PCIe.json"), "a100.json");
    CHECK(forecast_caveats(a100, Predictor::tilecast).empty());
    const GpuSpec mi210 = parse_gpu_spec(
        test::read_file(test::data_dir() + "/devices/AMD_Instinct_MI210.json"), "mi210.json");
    CHECK(forecast_caveats(mi210, Predictor::tilecast).size() == 1);
  }

  TEST_CASE("the JSON responses carry them") {
    CHECK(forecast("h100-sxm", "tilecast")["caveats"].size() == 1);
    CHECK(forecast("h100-sxm", "roofline")["caveats"].empty());
    CHECK(forecast("a100-80gb-pcie", "tilecast")["caveats"].empty());
    nlohmann::json k;
    k["gpu"] = "mi300x";
    k["op"] = "softmax";
    k["dims"] = {1024, 1024};
    CHECK(nlohmann::json::parse(api::forecast_kernel(k.dump()))["caveats"].size() == 1);
  }
}
