// Caveats: a learned forecast says when its GPU's vendor or architecture was never
// measured for training; the roofline and the measured families say nothing.
#include "tilecast/forecast_caveats.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "forecast/model_registry.hpp"
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
    const auto& trained_on = embedded_weights("nvidia-fp32").trained_on;
    REQUIRE(trained_on.size() == 5);
    for (const std::string& name : trained_on) {
      INFO(name);
      CHECK(lookup_gpu(name) != nullptr);
    }
  }

  TEST_CASE("a measured architecture has none; a new one or another vendor has one") {
    for (const char* id : {"a100-80gb-pcie", "v100-sxm", "t4", "p4"}) {
      INFO(id);
      CHECK(forecast_caveats(find_gpu(id), Predictor::tilecast).empty());
    }
    // Ampere GA10x: a measured architecture, but the FP32 issue ceiling no training GPU has.
    const auto a10 = forecast_caveats(find_gpu("a10"), Predictor::tilecast);
    REQUIRE(a10.size() == 1);
    CHECK(a10[0].find("issue slot") != std::string::npos);
    // FP16: the softmax transfer, unless the forecast says it used no transfer
    const auto a10_fp16 = forecast_caveats(find_gpu("a10"), Predictor::tilecast, DataType::fp16);
    REQUIRE(a10_fp16.size() == 1);
    CHECK(a10_fp16[0].find("take model 'nvidia-fp32'") != std::string::npos);
    const std::vector<std::string> none;
    CHECK(forecast_caveats(find_gpu("a10"), Predictor::tilecast, DataType::fp16, &none).empty());
    const std::vector<std::string> used{"nvidia-fp32 fp16 softmax"};
    // with what the forecast used, the caveat names the families the transfer forecast
    const auto a10_used =
        forecast_caveats(find_gpu("a10"), Predictor::tilecast, DataType::fp16, &used);
    REQUIRE(a10_used.size() == 1);
    CHECK(a10_used[0].find("fp16 softmax kernels on NVIDIA A10 take model 'nvidia-fp32'") !=
          std::string::npos);
    const auto h100 = forecast_caveats(find_gpu("h100-sxm"), Predictor::tilecast);
    REQUIRE(h100.size() == 2);
    CHECK(h100[0].find("No Hopper GPU was measured") != std::string::npos);
    CHECK(h100[1].find("FP32 GEMMs are held to 94%") != std::string::npos);
    // Which measured GPU's cuBLAS tiles its FP32 GEMMs follow: the A100's (sm80 generation).
    CHECK(h100[0].find("tiles follow the cuBLAS kernels measured on the NVIDIA A100-PCIE-40GB") !=
          std::string::npos);
    CHECK(h100[0].find("(ampere)") != std::string::npos);
    for (const std::string& c :
         forecast_caveats(find_gpu("h100-sxm"), Predictor::tilecast, DataType::bf16))
      CHECK(c.find("tiles follow") == std::string::npos);  // tensor-core tiles: another rule
    const auto mi300x = forecast_caveats(find_gpu("mi300x"), Predictor::tilecast);
    REQUIRE(mi300x.size() == 1);
    CHECK(mi300x[0].find("No CDNA 3 GPU was measured") != std::string::npos);  // AMD: CDNA 1/2
    CHECK(forecast_caveats(find_gpu("mi210"), Predictor::tilecast).empty());
    CHECK(forecast_caveats(find_gpu("mi300x"), Predictor::roofline).empty());
  }

  TEST_CASE("a dataset device file takes its architecture from the catalog") {
    const GpuSpec a100 = parse_gpu_spec(
        test::read_file(test::data_dir() + "/devices/NVIDIA_A100_80GB_PCIe.json"), "a100.json");
    CHECK(forecast_caveats(a100, Predictor::tilecast).empty());
    const GpuSpec mi210 = parse_gpu_spec(
        test::read_file(test::data_dir() + "/devices/AMD_Instinct_MI210.json"), "mi210.json");
    CHECK(forecast_caveats(mi210, Predictor::tilecast).empty());  // CDNA 2, measured
    const GpuSpec mi250 = parse_gpu_spec(
        test::read_file(test::data_dir() + "/devices/AMD_Instinct_MI250.json"), "mi250.json");
    CHECK(forecast_caveats(mi250, Predictor::tilecast).empty());
  }

  TEST_CASE("the JSON responses carry them") {
    CHECK(forecast("h100-sxm", "tilecast")["caveats"].size() == 2);
    CHECK(forecast("h100-sxm", "roofline")["caveats"].empty());
    CHECK(forecast("a100-80gb-pcie", "tilecast")["caveats"].empty());
    nlohmann::json k;
    k["gpu"] = "mi300x";
    k["op"] = "softmax";
    k["dims"] = {1024, 1024};
    CHECK(nlohmann::json::parse(api::forecast_kernel(k.dump()))["caveats"].size() == 1);
  }

  TEST_CASE("an impossible custom GPU is named as such; every catalog and dataset GPU is not") {
    for (const GpuSpec& g : gpu_catalog()) {
      INFO(g.id);
      CHECK(gpu_spec_warnings(g).empty());
    }
    for (const char* f :
         {"AMD_Instinct_MI210.json", "Tesla_P4.json", "NVIDIA_A100_80GB_PCIe.json"}) {
      INFO(f);
      const std::string path = test::data_dir() + "/devices/" + f;
      CHECK(gpu_spec_warnings(parse_gpu_spec(test::read_file(path), path)).empty());
    }
    // One SM at 1,000 TFLOPS: the issue's example.
    const GpuSpec odd = parse_gpu_spec(
        R"({"name":"odd","vendor":"NVIDIA","architecture":"Ampere","num_sm":1,"cores_per_sm":128,
            "boost_clock_mhz":1400,"fp32_gflops":1000000,"mem_gb":16,"mem_bw_gbps":900,
            "l2_mb":4})",
        "custom GPU");
    const auto w = gpu_spec_warnings(odd);
    REQUIRE(w.size() == 2);  // FLOPs per clock and bandwidth per SM
    CHECK(w[0].find("FLOPs per SM per clock") != std::string::npos);
    CHECK(w[1].find("bandwidth per SM") != std::string::npos);
    // Shown for either predictor, first among the caveats.
    CHECK(forecast_caveats(odd, Predictor::roofline).size() == 2);
    CHECK(forecast_caveats(odd, Predictor::tilecast).front() == w[0]);
  }

  TEST_CASE("a custom GPU that names no architecture gets a caveat") {
    const GpuSpec g = parse_gpu_spec(
        R"({"name":"mystery","vendor":"NVIDIA","num_sm":80,"cores_per_sm":64,
            "boost_clock_mhz":1500,"fp32_gflops":15360,"mem_gb":32,"mem_bw_gbps":900,
            "l2_mb":6})",
        "custom GPU");
    const auto c = forecast_caveats(g, Predictor::tilecast);
    REQUIRE(c.size() == 1);
    CHECK(c[0].find("names no architecture") != std::string::npos);
    CHECK(forecast_caveats(g, Predictor::roofline).empty());
  }

  TEST_CASE("each vendor's caveat names its own vendor's training GPUs") {
    // Each forecast reads only its vendor's weight set (forecast/caveats.cpp): an unmeasured
    // NVIDIA architecture lists the NVIDIA ones, an AMD one the CDNA ones.
    const auto first = [](const char* id) {
      const auto c = forecast_caveats(*lookup_gpu(id), Predictor::tilecast);
      return c.empty() ? std::string() : c.front();
    };
    const std::string nvidia = first("l4");
    CHECK(nvidia.find("No Ada Lovelace GPU was measured for training (only Ampere, Pascal, "
                      "Turing and Volta)") != std::string::npos);
    const std::string amd = first("mi300x");
    CHECK(amd.find("the AMD models learned from CDNA") != std::string::npos);
    CHECK(amd.find("Volta") == std::string::npos);
  }

  TEST_CASE("an assumed GEMM kernel generation is said; a read one is not") {
    // Ada's and Blackwell's cuBLAS generation is assumed (core/data/libraries/cuda-pytorch.json),
    // Hopper's was read from the H200's kernel names.
    const auto said = [](const char* id) {
      for (const std::string& c : forecast_caveats(*lookup_gpu(id), Predictor::tilecast))
        if (c.find("That generation is assumed for") != std::string::npos) return true;
      return false;
    };
    CHECK(said("rtx-4090"));
    CHECK(said("b200"));
    CHECK_FALSE(said("h100-sxm"));
    CHECK_FALSE(said("a10"));  // GA10x, Ampere: the A100s' names
    const std::string l4 = forecast_caveats(*lookup_gpu("l4"), Predictor::tilecast).front();
    CHECK(l4.find("That generation is assumed for Ada Lovelace, not read from its kernel names") !=
          std::string::npos);
  }

  TEST_CASE("a sequence beyond the model's positions is named with the limit, in the JSON too") {
    const auto at = [](const char* model, std::int64_t seq) {
      nlohmann::json r;
      r["gpu"] = "a100-80gb-sxm";
      r["model"] = model;
      r["seq"] = seq;
      r["batch"] = 1;
      r["predictor"] = "roofline";
      // the positions caveat only: a pass that does not fit in memory says so too (below)
      const nlohmann::json all = nlohmann::json::parse(api::forecast_model(r.dump()));
      nlohmann::json out = nlohmann::json::array();
      for (const auto& c : all["caveats"])
        if (c.get<std::string>().rfind("memory: ", 0) != 0) out.push_back(c);
      return out;
    };
    CHECK(at("bert-base", 512).empty());
    const auto bert = at("bert-base", 8192);
    REQUIRE(bert.size() == 1);
    CHECK(bert[0].get<std::string>().find("(512 positions)") != std::string::npos);
    CHECK(at("gpt2", 1024).empty());
    REQUIRE(at("gpt2", 4096).size() == 1);
    CHECK(at("llama3-70b", 8192).empty());
    const auto llama = at("llama3-70b", 65536);
    REQUIRE(llama.size() == 1);
    CHECK(llama[0].get<std::string>().find("8192 positions") != std::string::npos);
    // Llama 3 70B in FP32 (280 GB of weights) does not fit in the A100's 80 GB: a caveat says so
    nlohmann::json r = {
        {"gpu", "a100-80gb-sxm"}, {"model", "llama3-70b"}, {"seq", 8192}, {"batch", 1}};
    const auto all = nlohmann::json::parse(api::forecast_model(r.dump()));
    CHECK_FALSE(all["memory"]["fits"].get<bool>());
    CHECK(all["caveats"].back().get<std::string>().find("it does not fit") != std::string::npos);
  }

  TEST_CASE("a layer norm row the vectorized kernel cannot take is named, with its length") {
    const auto caveats = [](const char* gpu, const char* op, std::int64_t h) {
      nlohmann::json k;
      k["gpu"] = gpu;
      k["op"] = op;
      k["dims"] = {4096, h};
      return nlohmann::json::parse(api::forecast_kernel(k.dump()))["caveats"];
    };
    const auto odd = caveats("a100-80gb-pcie", "ln", 1023);
    REQUIRE(odd.size() == 1);
    CHECK(odd[0].get<std::string>().find("row of 1023 elements is not a multiple of 4") !=
          std::string::npos);
    CHECK(caveats("a100-80gb-pcie", "ln", 1024).empty());
    CHECK(caveats("a100-80gb-pcie", "ln", 1028).empty());
    CHECK(caveats("a100-80gb-pcie", "softmax", 1023).empty());  // no such rule for softmax
    CHECK(caveats("a100-80gb-pcie", "add", 1023).empty());
    // AMD's library profile states the same width; an MI300X also gets its architecture caveat.
    CHECK(caveats("mi300x", "ln", 1022).size() == 2);
    CHECK(caveats("mi300x", "ln", 1020).size() == 1);
  }

  TEST_CASE("a Switch Transformer forecast says which router's capacity rule it follows") {
    const auto caveats = [](const char* model) {
      nlohmann::json r;
      r["gpu"] = "a100-80gb-pcie";
      r["model"] = model;
      r["batch"] = 2;
      r["seq"] = 512;
      r["mode"] = "inference";
      return nlohmann::json::parse(api::forecast_model(r.dump()))["caveats"];
    };
    const auto sw = caveats("switch-xl-4");
    REQUIRE(sw.size() == 1);
    CHECK(sw[0].get<std::string>().find("a buffer of 64 tokens per sequence") != std::string::npos);
    CHECK(sw[0].get<std::string>().find("transformers 5") != std::string::npos);
    CHECK(caveats("gpt2").empty());
  }
}
