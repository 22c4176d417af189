// Serving forecasts (docs/serving.md): KV-cache bytes and weights against hand computations,
// the memory limits, how prefill and decode scale, the bad inputs of issue 12 item 8, the
// engines and tensor parallelism, and the JSON API's fields.
#include "tilecast/serving.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "forecast/kernel_times.hpp"
#include "serve/fixed_costs.hpp"
#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

ServingRequest serving_request(std::int64_t prompt, std::int64_t output, std::int64_t batch,
                               DataType dtype = DataType::bf16) {
  ServingRequest r;
  r.prompt = prompt;
  r.output = output;
  r.batch = batch;
  r.dtype = dtype;
  return r;
}

}  // namespace

TEST_SUITE("serving") {
  TEST_CASE("KV-cache bytes per token: 2 x layers x kv heads x head_dim x bytes") {
    // Llama-2 7B, FP16: 2 x 32 x 32 x 128 x 2
    CHECK(kv_cache_bytes_per_token(find_model("llama2-7b"), DataType::fp16) == 524288);
    // Llama-3 8B, grouped-query attention with 8 key/value heads
    CHECK(kv_cache_bytes_per_token(find_model("llama3-8b"), DataType::bf16) == 131072);
    CHECK(kv_cache_bytes_per_token(find_model("llama3-8b"), DataType::fp32) == 262144);
    // tensor parallel: the key/value heads split over the GPUs
    CHECK(kv_cache_bytes_per_token(find_model("llama3-8b"), DataType::bf16, 2) == 65536);
    // more GPUs than kv heads: each GPU keeps one (replicated)
    CHECK(kv_cache_bytes_per_token(find_model("llama3-8b"), DataType::bf16, 16) == 16384);
  }

  TEST_CASE("weights and the memory breakdown of Llama-2 7B in BF16") {
    const ServingForecast f = forecast_serving(find_gpu("a100-80gb-sxm"), find_model("llama2-7b"),
                                               serving_request(512, 128, 4));
    // 6,738,415,616 parameters x 2 bytes
    CHECK(f.memory.weights_gb == doctest::Approx(13.477).epsilon(0.001));
    // 524,288 bytes x 4 sequences x 640 tokens
    CHECK(f.memory.kv_cache_gb == doctest::Approx(524288.0 * 4 * 640 / 1e9));
    CHECK(f.memory.total_gb == doctest::Approx(f.memory.weights_gb + f.memory.kv_cache_gb +
                                               f.memory.activations_gb + f.memory.context_gb));
    CHECK(f.memory.capacity_gb == doctest::Approx(81920 * 1048576.0 / 1e9));  // 81920 MiB printed
    CHECK(f.memory.fits);
    CHECK(f.max_batch >= 4);
  }

  TEST_CASE("max_batch and max_context solve the memory equation") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    const ServingForecast f = forecast_serving(gpu, model, serving_request(512, 256, 8));
    REQUIRE(f.max_batch > 8);
    // the largest batch fits, one more does not
    CHECK(forecast_serving(gpu, model, serving_request(512, 256, f.max_batch)).memory.fits);
    CHECK_FALSE(
        forecast_serving(gpu, model, serving_request(512, 256, f.max_batch + 1)).memory.fits);
    // longer sequences fit fewer; a longer context fits at the batch
    const ServingForecast longer = forecast_serving(gpu, model, serving_request(2048, 2048, 8));
    CHECK(longer.max_batch < f.max_batch);
    CHECK(f.max_context > 768);
    CHECK(forecast_serving(gpu, model, serving_request(512, f.max_context - 512, 8)).memory.fits);
    CHECK_FALSE(
        forecast_serving(gpu, model, serving_request(512, f.max_context - 511, 8)).memory.fits);
  }

  TEST_CASE("decode grows with the context, prefill with the prompt") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    // An eager step at batch 8 is bound by the host's launches (each kernel's PyTorch dispatch),
    // flat in the context (below); at batch 64 its attention outgrows them.
    for (Engine e : {Engine::fused, Engine::eager}) {
      CAPTURE(engine_name(e));
      ServingRequest r = serving_request(512, 2048, e == Engine::eager ? 64 : 8);
      r.engine = e;
      const ServingForecast f = forecast_serving(gpu, model, r);
      REQUIRE(f.decode_ms_at.size() == 5);
      CHECK(f.decode_ms_at.front().first == 512);
      CHECK(f.decode_ms_at.back().first == 512 + 2046);
      for (std::size_t i = 1; i < f.decode_ms_at.size(); ++i)
        CHECK(f.decode_ms_at[i].second > f.decode_ms_at[i - 1].second);
      CHECK(f.decode_ms_per_token > f.decode_ms_at.front().second);
      CHECK(f.decode_ms_per_token < f.decode_ms_at.back().second);
      CHECK(f.total_ms == doctest::Approx(f.prefill_ms + f.decode_ms_per_token * 2047));
      CHECK(f.tokens_per_s == doctest::Approx(double(r.batch) * 1000 / f.decode_ms_per_token));
      ServingRequest longer = r;
      longer.prompt = 2048;
      CHECK(forecast_serving(gpu, model, longer).prefill_ms > 2 * f.prefill_ms);
    }
    ServingRequest small = serving_request(512, 2048, 8);
    small.engine = Engine::eager;
    const ServingForecast host_bound = forecast_serving(gpu, model, small);
    for (const auto& [context, ms] : host_bound.decode_ms_at)
      CHECK(ms == doctest::Approx(host_bound.decode_ms_per_token).epsilon(0.01));
  }

  TEST_CASE("the fused engine beats eager; eager decode matches the decode-mode forecast") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    ServingRequest r = serving_request(1024, 2, 8, DataType::fp32);
    const ServingForecast fused = forecast_serving(gpu, model, r);
    r.engine = Engine::eager;
    const ServingForecast eager = forecast_serving(gpu, model, r);
    CHECK(fused.prefill_ms < eager.prefill_ms);
    CHECK(fused.decode_ms_per_token < eager.decode_ms_per_token);
    // one eager FP32 decode step against 1024 cached tokens is `forecast --mode decode` and the
    // sampler's read of the 8 logits rows (serve/fixed_costs.hpp)
    const ModelForecast step =
        forecast_model(gpu, model, make_workload(Mode::decode, 8, 1, 1024), Predictor::tilecast);
    CHECK(eager.decode_ms_at.front().second ==
          doctest::Approx(step.latency_ms + detail::sampling_step_ms(
                                                gpu,
                                                detail::streaming_bw_gbps(gpu, Predictor::tilecast),
                                                8, model.vocab_size))
              .epsilon(1e-9));
    // the score matrix: eager keeps it, so its prefill workspace is larger
    CHECK(eager.memory.activations_gb > fused.memory.activations_gb);
  }

  TEST_CASE("tensor parallelism: less compute per GPU, all-reduces, half the weights") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    ServingRequest r = serving_request(512, 64, 8);
    const ServingForecast one = forecast_serving(gpu, model, r);
    r.tp = 2;
    const ServingForecast two = forecast_serving(gpu, model, r);
    CHECK(two.comm_ms > 0);
    CHECK(two.comm_model.find("DGX H100") != std::string::npos);
    CHECK(two.prefill_ms < one.prefill_ms);
    CHECK(two.memory.weights_gb == doctest::Approx(one.memory.weights_gb / 2));
    CHECK(two.kv_cache_bytes_per_token == one.kv_cache_bytes_per_token / 2);
    r.tp = 3;  // 32 heads
    CHECK_THROWS_WITH_AS(forecast_serving(gpu, model, r), doctest::Contains("does not divide"),
                         Error);
  }

  TEST_CASE("bad input: beyond the model's context, too large to fit, a precision the GPU lacks") {
    const ModelConfig& model = find_model("llama2-7b");  // 4,096 positions
    const ServingForecast longer =
        forecast_serving(find_gpu("h100-sxm"), model, serving_request(4000, 200, 1));
    CHECK(test::mentions(longer.caveats, "4096 positions"));
    CHECK_FALSE(test::mentions(
        forecast_serving(find_gpu("h100-sxm"), model, serving_request(3000, 200, 1)).caveats,
        "positions"));

    const ServingForecast huge =
        forecast_serving(find_gpu("h100-sxm"), model, serving_request(2048, 2048, 256));
    CHECK_FALSE(huge.memory.fits);
    CHECK(std::isfinite(huge.total_ms));
    CHECK(test::mentions(huge.caveats, "Does not fit"));
    CHECK(test::mentions(huge.caveats, "more than"));
    // where more GPUs would hold it, the least tensor parallelism that does (Llama 3.1 405B in
    // BF16: 812 GB of weights, 101 GB a GPU at tp 8, 51 at tp 16); where none up to 64 would,
    // that none does (Llama 2 7B's 32 heads split at most 32 ways: 8,192 sequences of 4,096
    // tokens are 17 TB of KV cache, 537 GB a GPU)
    const ServingForecast big = forecast_serving(find_gpu("h100-sxm"), find_model("llama3.1-405b"),
                                                 serving_request(1000, 100, 1));
    CHECK_FALSE(big.memory.fits);
    CHECK(test::mentions(big.caveats, "It fits at tp 16."));
    ServingRequest at16 = serving_request(1000, 100, 1);
    at16.tp = 16;
    CHECK(forecast_serving(find_gpu("h100-sxm"), find_model("llama3.1-405b"), at16).memory.fits);
    CHECK(test::mentions(huge.caveats, "It fits at tp 16."));
    // a tensor parallelism no system of the GPU holds is said so (RTX 4090s: 8 at most, a node
    // of their PCIe links; Llama 3.1 405B in FP8 needs 32 of them)
    CHECK(test::mentions(forecast_serving(find_gpu("rtx-4090"), find_model("llama3.1-405b"),
                                          serving_request(512, 64, 1, DataType::fp8))
                             .caveats,
                         "Its memory would hold it at tp 32, more of these GPUs than a catalog "
                         "system or a node of their links holds."));
    CHECK(test::mentions(
        forecast_serving(find_gpu("h100-sxm"), model, serving_request(2048, 2048, 8192)).caveats,
        "No tensor parallelism up to 64 GPUs holds it at this precision."));

    // a V100 has FP16 tensor cores but no BF16
    CHECK_THROWS_WITH_AS(forecast_serving(find_gpu("v100-sxm"), model, serving_request(128, 16, 1)),
                         doctest::Contains("no bf16 units; its precisions: fp32, fp16"), Error);
    CHECK_NOTHROW(
        forecast_serving(find_gpu("v100-sxm"), model, serving_request(128, 16, 1, DataType::fp16)));
    // an encoder cannot decode
    CHECK_THROWS_AS(forecast_serving(find_gpu("h100-sxm"), find_model("bert-base"),
                                     serving_request(128, 16, 1)),
                    Error);
  }

  TEST_CASE("api::forecast_serving: every field present and finite") {
    const std::string text = api::forecast_serving(
        R"({"gpu":"h100-sxm","model":"llama3-8b","prompt":512,"output":256,"batch":8,"precision":"bf16"})");
    const auto j = nlohmann::json::parse(text);
    for (const char* k : {"prefill_ms", "decode_ms_per_token", "total_ms", "tokens_per_s",
                          "kv_cache_bytes_per_token"}) {
      CAPTURE(k);
      REQUIRE(j.contains(k));
      CHECK(std::isfinite(j[k].get<double>()));
      CHECK(j[k].get<double>() > 0);
    }
    for (const char* k :
         {"weights_gb", "kv_cache_gb", "activations_gb", "context_gb", "total_gb"}) {
      CAPTURE(k);
      CHECK(std::isfinite(j["memory"][k].get<double>()));
    }
    CHECK(j["memory"]["fits"].get<bool>());
    CHECK(j["max_batch"].get<std::int64_t>() > 8);
    // the memory holds more tokens than Llama 3 was trained for; the response says both
    CHECK(j["model_context"].get<std::int64_t>() == 8192);
    CHECK(j["max_context"].get<std::int64_t>() > j["model_context"].get<std::int64_t>());
    CHECK(j["decode_ms_at"].contains("512"));
    CHECK(j["engine"] == "fused");
    CHECK(j["caveats"].size() >= 3);
    CHECK_THROWS_WITH_AS(
        api::forecast_serving(R"({"gpu":"h100-sxm","model":"llama3-8b","output":4})"),
        doctest::Contains("'prompt'"), Error);
    CHECK_THROWS_WITH_AS(
        api::forecast_serving(
            R"({"gpu":"h100-sxm","model":"llama3-8b","prompt":4,"output":4,"engine":"turbo"})"),
        doctest::Contains("field 'engine'"), Error);
  }
}
