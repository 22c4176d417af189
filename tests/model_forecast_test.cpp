// Aggregation and the whole-model JSON API.
#include "tilecast/model_forecast.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

std::string model_request(const std::string& model, long long batch, long long seq,
                          const std::string& mode) {
  nlohmann::json r;
  r["gpu"] = "a100-80gb-pcie";
  r["model"] = model;
  r["batch"] = batch;
  r["seq"] = seq;
  r["mode"] = mode;
  r["predictor"] = "roofline";
  return r.dump();
}

std::string api_error(const std::string& req) {
  return test::error_of([&] { (void)api::forecast_model(req); });
}

}  // namespace

TEST_SUITE("model_forecast") {
  TEST_CASE("sections, phases and kinds add up") {
    const GpuSpec& gpu = find_gpu("v100-pcie");
    for (const char* m : {"gpt3-2.7b", "bert-large", "opt-1.3b", "llama2-7b", "switchxl4"}) {
      CAPTURE(m);
      const ModelForecast f = forecast_model(
          gpu, find_model(m), make_workload(Mode::training, 2, 512), Predictor::roofline);
      double sections = 0, kinds = 0;
      for (const auto& l : f.layers) sections += l.total_ms;
      for (double k : f.breakdown_ms) kinds += k;
      CHECK(sections == doctest::Approx(f.latency_ms));
      CHECK(kinds == doctest::Approx(f.latency_ms));
      CHECK(f.forward_ms + f.backward_ms == doctest::Approx(f.latency_ms));
      CHECK(f.accumulate_ms > 0);
      CHECK(f.backward_ms > f.forward_ms);
      CHECK(f.tokens_per_s == doctest::Approx(f.samples_per_s * 512));
      const ModelForecast inf = forecast_model(
          gpu, find_model(m), make_workload(Mode::inference, 2, 512), Predictor::roofline);
      CHECK(inf.backward_ms == 0);
      CHECK(inf.latency_ms < f.latency_ms);
    }
  }

  TEST_CASE("launch-order replay hides launch cost, never more") {
    const GpuSpec& gpu = find_gpu("v100-pcie");
    const ModelConfig& m = find_model("bert-large");
    const ModelForecast roof =
        forecast_model(gpu, m, make_workload(Mode::training, 2, 512), Predictor::roofline);
    CHECK(roof.latency_ms == doctest::Approx(roof.kernel_sum_ms));  // no overhead term
    // the learned predictor's weights are embedded: it must forecast
    const ModelForecast f =
        forecast_model(gpu, m, make_workload(Mode::training, 2, 512), Predictor::tilecast);
    CHECK(f.latency_ms <= f.kernel_sum_ms * (1 + 1e-12));
    CHECK(f.latency_ms >= roof.latency_ms);
    CHECK(f.latency_ms < f.kernel_sum_ms);  // some launch cost hidden
    double kinds = 0;
    for (double k : f.breakdown_ms) kinds += k;
    CHECK(kinds == doctest::Approx(f.latency_ms));
  }

  TEST_CASE("the API response carries every documented field") {
    const auto j =
        nlohmann::json::parse(api::forecast_model(model_request("gpt3_27", 1, 2048, "training")));
    for (const char* k :
         {"tilecast_version", "gpu", "model", "mode", "batch", "seq", "predictor", "latency_ms",
          "band_low_ms", "band_high_ms", "forward_ms", "backward_ms", "samples_per_s",
          "tokens_per_s", "kernels", "breakdown", "layers", "substitutions", "roofline_latency_ms"})
      CHECK_MESSAGE(j.contains(k), k);
    CHECK(j["model"]["id"] == "gpt3-2.7b");
    CHECK(j["model"]["architecture"] == "gpt2");
    CHECK(j["gpu"]["name"] == "NVIDIA A100 80GB PCIe");
    CHECK(j["mode"] == "training");
    for (const char* k : {"gemm", "attention_bmm", "softmax", "norm", "elementwise", "memory"})
      CHECK_MESSAGE(j["breakdown"].contains(k), k);
    CHECK(j["layers"].size() == 3);
    CHECK(j["layers"][1]["count"] == 32);
    CHECK(j["latency_ms"].get<double>() == doctest::Approx(j["roofline_latency_ms"].get<double>()));
    // deterministic
    CHECK(api::forecast_model(model_request("gpt3_27", 1, 2048, "training")) ==
          api::forecast_model(model_request("gpt3_27", 1, 2048, "training")));
  }

  TEST_CASE("llama lists its substitutions; inline configs work") {
    const auto j =
        nlohmann::json::parse(api::forecast_model(model_request("llama3-8b", 1, 512, "inference")));
    bool silu = false;
    for (const auto& s : j["substitutions"])
      if (s["kernel"] == "silu" && s["forecast_as"] == "gelu") silu = true;
    CHECK(silu);
    nlohmann::json r = nlohmann::json::parse(model_request("x", 1, 64, "inference"));
    r["model"] = nlohmann::json::parse(
        R"({"model_type":"gpt2","n_embd":64,"n_layer":2,"n_head":4,"vocab_size":100})");
    const auto k = nlohmann::json::parse(api::forecast_model(r.dump()));
    CHECK(k["latency_ms"].get<double>() > 0);
    CHECK(k["model"]["id"] == "");
  }

  TEST_CASE("list and validate models") {
    const auto list = nlohmann::json::parse(api::list_models());
    CHECK(list.size() >= 19);
    for (const auto& m : list)
      for (const char* k : {"id", "name", "architecture", "model_type", "layers", "hidden_size",
                            "params_b", "source"})
        CHECK_MESSAGE(m.contains(k), k);
    const auto v = nlohmann::json::parse(api::validate_model(
        R"({"architectures":["Qwen2ForCausalLM"],"hidden_size":64,"num_hidden_layers":2,
            "num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"vocab_size":99})"));
    CHECK(v["ok"] == true);
    CHECK(v["architecture"] == "qwen2");
    CHECK_THROWS_AS(api::validate_model("{}"), Error);
  }

  TEST_CASE("bad requests are clear errors") {
    CHECK(api_error(model_request("gpt3_27", 0, 2048, "training")).find("'batch'") !=
          std::string::npos);
    CHECK(api_error(model_request("gpt3_27", 1, -3, "training")).find("'seq'") !=
          std::string::npos);
    CHECK(api_error(model_request("gpt3_27", 1, 2048, "serving")).find("'mode'") !=
          std::string::npos);
    CHECK(api_error(model_request("nope", 1, 2048, "training")).find("unknown model") !=
          std::string::npos);
    CHECK(api_error(model_request("gpt3_27", 1LL << 30, 1LL << 30, "training")).find("too large") !=
          std::string::npos);
    CHECK(api_error(R"({"gpu":"a100-80gb-pcie","batch":1,"seq":8})").find("'model'") !=
          std::string::npos);
    CHECK(api_error("not json").find("not valid JSON") != std::string::npos);
    nlohmann::json r = nlohmann::json::parse(model_request("gpt2", 1, 8, "training"));
    r["batch"] = 1.5;
    CHECK(api_error(r.dump()).find("integer") != std::string::npos);
    r["batch"] = 1e30;
    CHECK(api_error(r.dump()).find("'batch'") != std::string::npos);
  }

  TEST_CASE(
      "attention scores beyond 2^31 elements are an ordinary kernel (batch 16 of GPT-3 2.7B)") {
    // batch x heads x seq x seq = 16 x 32 x 2048 x 2048 = 2^31 softmax elements; the issue's
    // default sweep failed here from batch 16 on.
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& m = find_model("gpt3-2.7b");
    double before = 0;
    for (std::int64_t batch : {8, 15, 16, 32, 64}) {
      CAPTURE(batch);
      const ModelForecast f =
          forecast_model(gpu, m, make_workload(Mode::training, batch, 2048), Predictor::tilecast);
      CHECK(std::isfinite(f.latency_ms));
      CHECK(f.latency_ms > before);
      before = f.latency_ms;
    }
    // Still an error, in words, where a dimension would outgrow any GPU's memory.
    const std::string e = api_error(model_request("gpt3_27", 1LL << 30, 1LL << 30, "training"));
    CHECK(e.find("2^31") == std::string::npos);
    CHECK(e.find("memory") != std::string::npos);
  }
}
