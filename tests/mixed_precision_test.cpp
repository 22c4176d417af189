// Mixed-precision training (torch.autocast) and half-precision forecasts: which kernels run in
// the half type, the autocast casts, the precision a GPU lacks, and the JSON API's field.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/parallel.hpp"

using namespace tilecast;

namespace {

std::string forecast_error(const std::string& request) {
  return test::error_of([&] { (void)api::forecast_model(request); });
}

}  // namespace

TEST_SUITE("mixed_precision") {
  TEST_CASE("autocast: GEMMs in the half type, every other kernel FP32, casts per linear") {
    const ModelConfig m = find_model("gpt2-large");
    const OpGraph g32 = build_op_graph(m, test::training(4, 512, DataType::fp32));
    const OpGraph g16 = build_op_graph(m, test::training(4, 512, DataType::bf16));
    int gemms = 0, casts = 0;
    for (const auto& s : g16.sections)
      for (const auto& o : s.ops) {
        if (is_gemm(o.kernel.op)) {
          ++gemms;
          CHECK(o.kernel.dtype == DataType::bf16);
        } else {
          CHECK(o.kernel.dtype == DataType::fp32);
        }
        if (o.stands_for == "autocast cast") ++casts;
      }
    CHECK(gemms > 0);
    CHECK(casts > 0);
    // the same GEMM FLOPs; the casts add kernels, and no FP32 graph has any
    CHECK(graph_flops(g16, Phase::forward) == doctest::Approx(graph_flops(g32, Phase::forward)));
    CHECK(graph_kernel_count(g16) > graph_kernel_count(g32));
    for (const auto& s : g32.sections)
      for (const auto& o : s.ops) CHECK(o.stands_for != "autocast cast");
    // a GEMM's saved input is kept in the half type
    CHECK(graph_saved_bytes(g16) < graph_saved_bytes(g32));
    // inference at bf16 runs every kernel in bf16 (weights in bf16, no casts)
    Workload inf = make_workload(Mode::inference, 1, 128);
    inf.dtype = DataType::bf16;
    for (const auto& s : build_op_graph(m, inf).sections)
      for (const auto& o : s.ops) {
        CHECK(o.kernel.dtype == DataType::bf16);
        CHECK(o.stands_for != "autocast cast");
      }
  }

  TEST_CASE(
      "a pure half forward: Hugging Face's FP32 islands (RMSNorm, Llama softmax), eager only") {
    const ModelConfig m = find_model("llama3-8b");
    Workload inf = make_workload(Mode::inference, 1, 256);
    inf.dtype = DataType::bf16;
    const OpGraph g = build_op_graph(m, inf);
    int casts = 0, fp32_norm = 0, fp32_softmax = 0, half_softmax = 0;
    double cast_bytes = 0;
    for (const auto& s : g.sections)
      for (const auto& o : s.ops) {
        if (o.stands_for == "to float32" || o.stands_for == "to half") {
          ++casts;
          cast_bytes += double(s.count) * kernel_bytes(o.kernel);
        }
        if (o.kind == OpKind::norm && o.kernel.dtype == DataType::fp32) ++fp32_norm;
        if (o.kernel.op == Op::softmax)
          (o.kernel.dtype == DataType::fp32 ? fp32_softmax : half_softmax) += 1;
        if (is_gemm(o.kernel.op)) CHECK(o.kernel.dtype == DataType::bf16);
      }
    // two casts per RMSNorm (2 a layer and the final one), one for the probabilities a layer
    const double layers = double(m.num_layers), tokens = 256, hidden = double(m.hidden_size);
    const double scores = double(m.num_heads) * tokens * tokens;
    CHECK(fp32_softmax == 1);
    CHECK(half_softmax == 0);
    CHECK(fp32_norm > 0);
    CHECK(casts == 2 * 2 + 2 + 1);  // the layer's sections list it once, counted by s.count
    CHECK(cast_bytes ==
          doctest::Approx(6 * (2 * (2 * layers + 1) * tokens * hidden + layers * scores)));
    // torch.compile fuses the islands into their neighbours: no casts, no FP32 kernel
    for (const auto& s : build_engine_graph(m, inf, Engine::compiled).sections)
      for (const auto& o : s.ops) {
        CHECK(o.kernel.dtype == DataType::bf16);
        CHECK(o.stands_for.find("to ") != 0);
      }
    // autocast training already runs them in FP32: no island casts there
    for (const auto& s : build_op_graph(m, test::training(1, 256, DataType::bf16)).sections)
      for (const auto& o : s.ops) CHECK(o.stands_for.find("to ") != 0);
  }

  TEST_CASE("a bf16 step is faster than FP32 on tensor-core GPUs, by less than the peak ratio") {
    for (const char* gpu : {"a100-80gb-sxm", "h100-sxm"}) {
      CAPTURE(gpu);
      const GpuSpec& g = find_gpu(gpu);
      const ModelConfig m = find_model("llama2-7b");
      const ModelForecast f32 =
          forecast_model(g, m, test::training(1, 1024, DataType::fp32), Predictor::tilecast);
      const ModelForecast f16 =
          forecast_model(g, m, test::training(1, 1024, DataType::bf16), Predictor::tilecast);
      CHECK(f16.latency_ms < f32.latency_ms);
      CHECK(f16.latency_ms > f32.latency_ms / 16);
      CHECK(f32.roofline_fallbacks.empty());
      // the FP32 whole-model band, carried over (tilecast/error_bands.hpp)
      CHECK(f16.band_high_ms / f16.latency_ms ==
            doctest::Approx(f32.band_high_ms / f32.latency_ms));
      CHECK(f32.band_high_ms > 0);
    }
  }

  TEST_CASE("the API's precision field: default fp32, named in the response, checked per GPU") {
    const std::string base = R"({"gpu":"a100-80gb-sxm","model":"gpt2","batch":2,"seq":256,)"
                             R"("mode":"training")";
    const auto plain = nlohmann::json::parse(api::forecast_model(base + "}"));
    const auto fp32 = nlohmann::json::parse(api::forecast_model(base + R"(,"precision":"fp32"})"));
    CHECK(plain["precision"] == "fp32");
    CHECK(plain["latency_ms"].get<double>() == fp32["latency_ms"].get<double>());
    const auto bf16 = nlohmann::json::parse(api::forecast_model(base + R"(,"precision":"bf16"})"));
    CHECK(bf16["precision"] == "bf16");
    CHECK(bf16["workload"]["precision"] == "bf16");
    CHECK(bf16["band_low_ms"].get<double>() < bf16["latency_ms"].get<double>());
    bool autocast_caveat = false;
    for (const auto& c : bf16["caveats"])
      autocast_caveat =
          autocast_caveat || c.get<std::string>().find("autocast") != std::string::npos;
    CHECK(autocast_caveat);
    // a precision the GPU lacks: an error naming its precisions
    const std::string v100 = forecast_error(
        R"({"gpu":"v100-sxm","model":"gpt2","batch":1,"seq":128,"mode":"training","precision":"bf16"})");
    CHECK(v100.find("no bf16") != std::string::npos);
    CHECK(v100.find("fp16") != std::string::npos);
    CHECK(forecast_error(base + R"(,"precision":"fp8"})").find("'precision'") != std::string::npos);
    CHECK(forecast_error(base + R"(,"precision":"fp12"})").find("'precision'") !=
          std::string::npos);
    // fp16 on a V100 (tensor cores): forecast
    CHECK(
        forecast_error(
            R"({"gpu":"v100-sxm","model":"gpt2","batch":1,"seq":128,"mode":"training","precision":"fp16"})")
            .empty());
  }
  TEST_CASE("half master weights: every kernel, gradient and saved activation in the type") {
    const ModelConfig m = find_model("gpt2-large");
    Workload pure = test::training(4, 512, DataType::bf16);
    pure.master_weights = MasterWeights::half;
    CHECK_FALSE(pure.autocast());
    CHECK(test::training(4, 512, DataType::bf16).autocast());
    const OpGraph gp = build_op_graph(m, pure);
    const OpGraph ga = build_op_graph(m, test::training(4, 512, DataType::bf16));
    int accumulations = 0;
    for (const auto& s : gp.sections)
      for (const auto& o : s.ops) {
        CHECK(o.kernel.dtype == DataType::bf16);
        CHECK(o.stands_for != "autocast cast");
        if (o.phase == Phase::accumulate) ++accumulations;
      }
    CHECK(accumulations > 0);
    CHECK(graph_flops(gp, Phase::forward) == doctest::Approx(graph_flops(ga, Phase::forward)));
    CHECK(graph_kernel_count(gp) < graph_kernel_count(ga));  // no casts
    CHECK(graph_saved_bytes(gp) < graph_saved_bytes(ga));    // norms' and masks' inputs halved
    // Adam over BF16 parameters: 2 + 2 + 4 bytes a parameter, no FP32 master copy
    const ModelStateBytes half = model_state_bytes(1e9, DataType::bf16, 0, 1, MasterWeights::half);
    const ModelStateBytes mixed = model_state_bytes(1e9, DataType::bf16, 0, 1);
    CHECK(half.weights + half.gradients + half.optimizer == doctest::Approx(8e9));
    CHECK(mixed.weights + mixed.gradients + mixed.optimizer == doctest::Approx(16e9));
    // FP32 ignores it
    Workload fp32 = test::training(4, 512, DataType::fp32);
    fp32.master_weights = MasterWeights::half;
    CHECK(graph_kernel_count(build_op_graph(m, fp32)) ==
          graph_kernel_count(build_op_graph(m, test::training(4, 512, DataType::fp32))));
  }

  TEST_CASE(
      "the API's master_weights field: echoed, faster than autocast, refused where it does "
      "not apply") {
    const std::string base =
        R"({"gpu":"h200","model":"gpt2-large","batch":4,"seq":512,"mode":"training","precision":"bf16")";
    const auto pure =
        nlohmann::json::parse(api::forecast_model(base + R"(,"master_weights":"half"})"));
    const auto mixed = nlohmann::json::parse(api::forecast_model(base + "}"));
    CHECK(pure["workload"]["master_weights"] == "half");
    CHECK(mixed["workload"]["master_weights"] == "fp32");
    CHECK(pure["latency_ms"].get<double>() < mixed["latency_ms"].get<double>());
    CHECK(pure["memory"]["optimizer_gb"].get<double>() <
          mixed["memory"]["optimizer_gb"].get<double>());
    CHECK(forecast_error(base + R"(,"master_weights":"bf16"})").find("allowed: fp32, half") !=
          std::string::npos);
    CHECK(
        forecast_error(
            R"({"gpu":"h200","model":"gpt2","batch":1,"seq":128,"precision":"bf16","master_weights":"half"})")
            .find("applies to mode training") != std::string::npos);
    CHECK(forecast_error(base + R"(,"master_weights":"half","gpus":2})").find("one GPU") !=
          std::string::npos);
    CHECK(forecast_error(base + R"(,"master_weights":"half","engine":"megatron","gpus":8})")
              .find("megatron keeps FP32 master weights") != std::string::npos);
  }
}
