// MFU and cost (issue 32 item 9): one definition of model FLOPs and MFU (tilecast/mfu.hpp) for
// the megatron engine and the eager single- and multi-GPU training forecasts; a price per GPU
// hour gives training's cost per step and per token count, serving's per million output tokens.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/mfu.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

nlohmann::json model(const std::string& req) {
  return nlohmann::json::parse(api::forecast_model(req));
}
nlohmann::json serving(const std::string& req) {
  return nlohmann::json::parse(api::forecast_serving(req));
}

// The same training request (`head`, a JSON object's first fields) on one GPU, on 8 GPUs eager
// (tp 2 on a DGX H100) and on 8 GPUs with the megatron engine: each answer, its GPUs, batch and
// step-time field.
struct Layout {
  nlohmann::json j;
  double gpus, batch;
  const char* step;
};
std::vector<Layout> three_layouts(const std::string& head) {
  return {{model(head + R"("batch":2})"), 1, 2, "latency_ms"},
          {model(head + R"("batch":16,"gpus":8,"tp":2,"system":"dgx-h100"})"), 8, 16, "step_ms"},
          {model(head + R"("batch":16,"gpus":8,"tp":2,"engine":"megatron","system":"dgx-h100"})"),
           8, 16, "step_ms"}};
}

}  // namespace

TEST_SUITE("mfu_cost") {
  TEST_CASE("model FLOPs: 6 N tokens plus attention, as eq. 7") {
    // GPT-3 2.7B, seq 2048: eq. 7's 72 B L s h^2 (1 + s/(6h) + V/(12hL))
    const ModelConfig& m = find_model("gpt3-2.7b");
    const double B = 1, L = double(m.num_layers), s = 2048, h = double(m.hidden_size),
                 V = double(m.vocab_size);
    const double eq7 = 72 * B * L * s * h * h * (1 + s / (6 * h) + V / (12 * h * L));
    CHECK(training_model_flops(m, 1, 2048) == doctest::Approx(eq7).epsilon(0.01));
    CHECK(training_model_flops(m, 4, 2048) == doctest::Approx(4 * eq7).epsilon(0.01));
    CHECK_THROWS_AS(training_model_flops(find_model("switch-xl-4"), 1, 128), Error);
    const ModelUtilization u = model_utilization(1e15, 1000, 4, 250);
    CHECK(u.model_tflops_per_gpu == doctest::Approx(250));
    CHECK(u.mfu == doctest::Approx(1.0));
    CHECK(model_utilization(1e15, 1000, 4, 0).mfu == 0);
    CHECK(mfu_peak_tflops(find_gpu("h100-sxm"), DataType::bf16) ==
          find_gpu("h100-sxm").peak_tflops_of(DataType::bf16, ComputeUnit::tensor));
    CHECK(mfu_peak_tflops(find_gpu("h100-sxm"), DataType::fp8) ==
          mfu_peak_tflops(find_gpu("h100-sxm"), DataType::bf16));
    CHECK(mfu_peak_tflops(find_gpu("a100-80gb-sxm"), DataType::fp32) ==
          doctest::Approx(find_gpu("a100-80gb-sxm").fp32_matrix_gflops / 1000));
    CHECK(gpu_time_cost(2.5, 8, 3.6e6) == doctest::Approx(20));
  }

  TEST_CASE("every training forecast has the megatron engine's MFU") {
    const std::string head = R"({"gpu":"h100-sxm","model":"llama2-7b","seq":1024,
      "mode":"training","precision":"bf16",)";
    const auto cases = three_layouts(head);
    const ModelConfig& m = find_model("llama2-7b");
    for (const Layout& c : cases) {
      const nlohmann::json& j = c.j;
      REQUIRE(j.contains("mfu"));
      const double flops = training_model_flops(m, std::int64_t(c.batch), 1024);
      const double tflops = flops / (j[c.step].get<double>() / 1e3) / c.gpus / 1e12;
      CHECK(j["model_tflops_per_gpu"].get<double>() == doctest::Approx(tflops));
      CHECK(j["peak_tflops"].get<double>() ==
            doctest::Approx(mfu_peak_tflops(find_gpu("h100-sxm"), DataType::bf16)));
      CHECK(j["mfu"].get<double>() == doctest::Approx(tflops / j["peak_tflops"].get<double>()));
      CHECK(j["mfu"].get<double>() > 0.05);
      CHECK(j["mfu"].get<double>() < 1);
    }
    // inference has none; an encoder-decoder none either
    CHECK(!model(R"({"gpu":"h100-sxm","model":"gpt2","batch":1,"seq":128})").contains("mfu"));
    CHECK(!model(R"({"gpu":"a100-80gb-sxm","model":"switch-xl-4","batch":1,"seq":128,
      "mode":"training"})")
               .contains("mfu"));
  }

  TEST_CASE("a price per GPU hour prices training steps and tokens") {
    const std::string head = R"({"gpu":"h100-sxm","model":"llama2-7b","seq":1024,
      "mode":"training","precision":"bf16","price_per_gpu_hour":3,"tokens":1e9,)";
    const auto cases = three_layouts(head);
    for (const Layout& c : cases) {
      const auto& cost = c.j["cost"];
      const double step_ms = c.j[c.step].get<double>();
      CHECK(cost["gpus"].get<double>() == c.gpus);
      CHECK(cost["per_hour"].get<double>() == doctest::Approx(3 * c.gpus));
      CHECK(cost["per_step"].get<double>() == doctest::Approx(3 * c.gpus * step_ms / 3.6e6));
      const double tokens_per_step = c.batch * 1024;
      CHECK(cost["per_million_tokens"].get<double>() ==
            doctest::Approx(cost["per_step"].get<double>() * 1e6 / tokens_per_step));
      CHECK(cost["for_tokens"].get<double>() ==
            doctest::Approx(cost["per_step"].get<double>() * 1e9 / tokens_per_step));
    }
    // no price: no cost, and the forecast is unchanged
    const auto plain = model(R"({"gpu":"h100-sxm","model":"llama2-7b","seq":1024,
      "mode":"training","precision":"bf16","batch":2})");
    CHECK(!plain.contains("cost"));
    CHECK(plain["latency_ms"] == cases[0].j["latency_ms"]);
  }

  TEST_CASE("serving: cost per million output tokens") {
    const auto s = serving(R"({"gpu":"h100-sxm","model":"llama3-8b","prompt":512,"output":128,
      "batch":8,"tp":2,"price_per_gpu_hour":4})");
    const auto& cost = s["cost"];
    CHECK(cost["gpus"] == 2);
    const double output_tokens = 8 * 128;
    CHECK(cost["per_million_tokens"].get<double>() ==
          doctest::Approx(4 * 2 * s["total_ms"].get<double>() / 3.6e6 / output_tokens * 1e6));
    CHECK(!cost.contains("per_step"));
    const auto load = serving(R"({"gpu":"h100-sxm","model":"llama3-8b","prompt":256,"output":64,
      "qps":4,"requests":20,"price_per_gpu_hour":4})");
    CHECK(load["cost"]["per_million_tokens"].get<double>() ==
          doctest::Approx(4.0 / 3600 / load["output_tokens_per_s"].get<double>() * 1e6));
    const auto inference = model(R"({"gpu":"h100-sxm","model":"gpt2","batch":4,"seq":128,
      "mode":"decode","price_per_gpu_hour":2})");
    CHECK(inference["cost"]["per_million_tokens"].get<double>() ==
          doctest::Approx(2.0 / 3600 / inference["tokens_per_s"].get<double>() * 1e6));
  }

  TEST_CASE("bad prices and token counts name the field") {
    for (const char* bad : {"0", "-1", "\"x\"", "1e7"})
      CHECK_THROWS_WITH_AS(
          api::forecast_model(std::string(R"({"gpu":"h100-sxm","model":"gpt2","batch":1,)") +
                              R"("seq":128,"price_per_gpu_hour":)" + bad + "}"),
          doctest::Contains("price_per_gpu_hour"), Error);
    CHECK_THROWS_WITH_AS(
        api::forecast_model(R"({"gpu":"h100-sxm","model":"gpt2","batch":1,"seq":128,"tokens":5})"),
        doctest::Contains("tokens"), Error);
    CHECK_THROWS_WITH_AS(
        api::forecast_serving(
            R"({"gpu":"h100-sxm","model":"gpt2","prompt":8,"output":8,"price_per_gpu_hour":0})"),
        doctest::Contains("price_per_gpu_hour"), Error);
  }
}
