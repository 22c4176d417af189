// Learned models as data (forecast/model_registry.hpp): every embedded model's manifest agrees
// with the files the trainer wrote (what it was trained on, by which command, the hash), names a
// known kind and files that are built in; the registry's answer for (vendor, precision, family);
// run-time models go through the same kinds; a malformed manifest names its field.
#include "forecast/model_registry.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_not_loaded.hpp"
#include "tilecast/roofline.hpp"

using namespace tilecast;

namespace {

std::string manifest_text(const std::string& id) {
  return test::read_file(test::repo_dir() + "/core/data/models/" + id + "/manifest.json");
}

Kernel kernel(Op op, DataType t) {
  Kernel k;
  k.op = op;
  k.dims = {1, 256, 256, 256};
  k.dtype = t;
  return k;
}

}  // namespace

TEST_SUITE("model_registry") {
  TEST_CASE("each manifest says what its files say: trained on, command, hash") {
    REQUIRE(embedded_manifests().size() >= 5);
    for (const ModelManifest& m : embedded_manifests()) {
      INFO(m.id);
      CHECK(parse_model_manifest(manifest_text(m.id), m.id).id == m.id);
      REQUIRE_FALSE(m.files.empty());
      for (const auto& [role, file] : m.files) {
        CHECK_FALSE(embedded_model_text(m.id, role).empty());
        const auto j = nlohmann::json::parse(
            test::read_file(test::repo_dir() + "/core/data/models/" + m.id + "/" + file));
        if (role == "tile_table") continue;  // tables record no run
        CHECK(j.value("command", "") == m.command);
        CHECK(j.value("hash", "") == m.hash);
        CHECK(j.value("trained_on", std::vector<std::string>{}) == m.trained_on);
      }
      if (!m.uses.empty()) CHECK(find_manifest(m.uses) != nullptr);
    }
  }

  TEST_CASE("which model for (vendor, precision, family)") {
    auto id = [](std::string_view vendor, DataType t, std::string_view family) {
      const ModelManifest* m = manifest_for(vendor, t, family);
      return m ? m->id : std::string("none");
    };
    CHECK(id("NVIDIA", DataType::fp32, "gemm") == "nvidia-fp32");
    CHECK(id("NVIDIA", DataType::bf16, "gemm") == "nvidia-half-gemm");
    CHECK(id("NVIDIA", DataType::fp16, "layernorm") == "nvidia-half");
    CHECK(id("AMD", DataType::fp32, "gemm") == "amd-fp32-gemm");
    CHECK(id("AMD", DataType::fp32, "softmax") == "amd-fp32");
    CHECK(id("Intel", DataType::fp32, "gemm") == "nvidia-fp32");  // the transfer
    // transfers (issue 29 item 2): the tensor-core GEMM model for FP8 GEMMs and AMD half GEMMs
    CHECK(id("AMD", DataType::bf16, "gemm") == "nvidia-half-gemm");
    CHECK(id("NVIDIA", DataType::fp8, "gemm") == "nvidia-half-gemm");
    CHECK(id("AMD", DataType::fp8, "gemm") == "nvidia-half-gemm");
    CHECK(id("NVIDIA", DataType::fp8, "elementwise") == "none");  // no FP8 non-GEMM kernels
    CHECK(id("NVIDIA", DataType::int8, "gemm") == "none");
    // the forecasts' registry agrees
    const GpuSpec& mi300x = find_gpu("mi300x");
    CHECK(has_learned_model(mi300x, kernel(Op::linear, DataType::fp32)));
    CHECK_FALSE(is_transferred(mi300x, kernel(Op::linear, DataType::fp32)));
    CHECK(has_learned_model(mi300x, kernel(Op::linear, DataType::bf16)));
    CHECK(is_transferred(mi300x, kernel(Op::linear, DataType::bf16)));
    CHECK(is_transferred(find_gpu("h100-sxm"), kernel(Op::linear, DataType::fp8)));
    CHECK_FALSE(is_transferred(find_gpu("h100-sxm"), kernel(Op::linear, DataType::bf16)));
    CHECK_FALSE(has_learned_model(find_gpu("h100-sxm"), kernel(Op::add, DataType::fp8)));
    CHECK(learned_model(mi300x, kernel(Op::linear, DataType::fp32))
              .forecast(mi300x, kernel(Op::linear, DataType::fp32))
              .latency_ms == embedded_model("amd-fp32-gemm")
                                 ->forecast(mi300x, kernel(Op::linear, DataType::fp32))
                                 .latency_ms);
    CHECK_THROWS_AS(embedded_model("no-such-model"), Error);
  }

  TEST_CASE("a run-time model of a kind, from text, forecasts as the embedded one") {
    const ModelManifest& m = *find_manifest("nvidia-fp32");
    std::string w, t;
    const std::string_view weights = embedded_model_text(m.id, "weights", &w);
    const std::string_view table = embedded_model_text(m.id, "tile_table", &t);
    const auto model = build_model(m, {{"weights", weights}, {"tile_table", table}},
                                   {{"weights", w}, {"tile_table", t}});
    const GpuSpec& a100 = find_gpu("a100-40gb-pcie");
    const Kernel k = kernel(Op::bmm, DataType::fp32);
    CHECK(model->forecast(a100, k).latency_ms ==
          embedded_model(m.id)->forecast(a100, k).latency_ms);
    CHECK_THROWS_WITH_AS(build_model(m, {{"weights", "{"}}, {{"weights", "w.json"}}),
                         doctest::Contains("w.json"), Error);
  }

  TEST_CASE("a malformed manifest names the field and what is allowed") {
    auto j = nlohmann::json::parse(manifest_text("amd-fp32-gemm"));
    auto error = [](const nlohmann::json& v) {
      try {
        parse_model_manifest(v.dump(), "m.json");
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(error(j).empty());
    auto bad = j;
    bad["kind"] = "crystal_ball";
    CHECK(error(bad).find("m.json: field 'kind' is 'crystal_ball'; allowed: learned_net") !=
          std::string::npos);
    bad = j;
    bad["precisions"] = nlohmann::json::array({"fp7"});
    CHECK(error(bad).find("field 'precisions'") != std::string::npos);
    bad = j;
    bad["families"] = nlohmann::json::array({"convolution"});
    CHECK(error(bad).find("'convolution'") != std::string::npos);
    bad = j;
    bad["files"]["model"] = "../amd-fp32/kernel_weights.json";
    CHECK(error(bad).find("files.model") != std::string::npos);
    bad = j;
    bad.erase("precisions");
    CHECK(error(bad).find("'precisions'") != std::string::npos);
    bad = j;
    bad["inputs_as"] = {{"fp32", "bf16"}};  // the model serves no BF16
    CHECK(error(bad).find("field 'inputs_as': 'fp32' takes bf16's inputs, which must be another "
                          "of its precisions") != std::string::npos);
    bad["inputs_as"] = {{"int8", "fp32"}};  // a type the model does not serve
    CHECK(error(bad).find("field 'inputs_as': 'int8' is not one of the model's precisions") !=
          std::string::npos);
    bad["inputs_as"] = {{"fp7", "fp32"}};
    CHECK(error(bad).find("field 'inputs_as'") != std::string::npos);
    bad["inputs_as"] = nlohmann::json::array();
    CHECK(error(bad).find("field 'inputs_as' must map") != std::string::npos);
  }

  TEST_CASE("BF16 takes the FP16 nets' inputs, held to its own roofline (inputs_as)") {
    // The A100's BF16 vector peak is half its FP16 one (39 against 78 TFLOPS), which its vLLM
    // and PyTorch kernels never use (both compute in FP32): forecast alike, not 0.62 vs 0.80
    // of the same roofline as when the nets saw the BF16 peak.
    const ModelManifest& half = *find_manifest("nvidia-half");
    CHECK(half.inputs_as.at(DataType::bf16) == DataType::fp16);
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    for (const char* op : {"rmsnorm", "ln", "add", "embedding"}) {
      const std::int64_t dims[] = {4096, 8192};
      Kernel k = make_kernel(parse_op(op), dims, 2, DataType::fp16);
      const KernelForecast f = forecast_kernel(a100, k);
      k.dtype = DataType::bf16;
      const KernelForecast b = forecast_kernel(a100, k);
      CHECK(b.latency_ms == f.latency_ms);
      CHECK(b.roofline_ms == roofline_latency_ms(a100, k));
    }
  }

  // The native build embeds every model (core/CMakeLists.txt, TILECAST_EMBED_MODELS "all"); the
  // WASM build loads the others on demand (web/tests/wasm.test.mjs checks that path).
  TEST_CASE("load_model takes a model's files by role; an embedded model's are ignored") {
    for (const ModelManifest& m : embedded_manifests()) CHECK(model_embedded(m.id));
    nlohmann::json req = {{"id", "amd-fp32"}, {"files", nlohmann::json::object()}};
    for (const auto& [role, file] : find_manifest("amd-fp32")->files)
      req["files"][role] = test::read_file(test::repo_dir() + "/core/data/models/amd-fp32/" + file);
    CHECK(nlohmann::json::parse(api::load_model(req.dump())) ==
          nlohmann::json{{"id", "amd-fp32"}, {"files", {"tile_table", "weights"}}});
    auto error = [](const nlohmann::json& r) {
      try {
        api::load_model(r.dump());
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(error({{"id", "no-such-model"}, {"files", nlohmann::json::object()}})
              .find("no model 'no-such-model'") != std::string::npos);
    auto bad = req;
    bad["files"].erase("tile_table");
    CHECK(error(bad).find("field 'files.tile_table' (tile_table.json) is missing") !=
          std::string::npos);
    bad = req;
    bad["files"]["gemm"] = "{}";
    CHECK(error(bad).find("field 'files.gemm'") != std::string::npos);
    bad = req;
    bad["files"]["weights"] = 3;
    CHECK(error(bad).find("'files.weights' must be the file's text") != std::string::npos);
    CHECK(error({{"id", "amd-fp32"}}).find("field 'files'") != std::string::npos);
    // The error of a model not loaded names it, for the front end to load.
    const ModelNotLoaded e("amd-fp32");
    CHECK(e.model_id() == "amd-fp32");
    CHECK(std::string(e.what()).find("'amd-fp32'") != std::string::npos);
  }
}
