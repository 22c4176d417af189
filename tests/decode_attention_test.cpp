// The decode attention kernel's reading of the K/V cache (serve/decode_attention.hpp): a
// per-query-head kernel (TensorRT-LLM before XQA) reads a grouped-query model's cache once per
// query head, so its decode steps take exactly the extra bytes at the rate a streaming kernel
// reads (forecast/kernel_times.hpp, streaming_bw_gbps); prefill,
// multi-head models and the default are unchanged; the load simulator, the JSON API and the
// errors follow.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "forecast/kernel_times.hpp"
#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;

namespace {

ServingRequest request(DecodeAttention a) {
  ServingRequest r;
  r.prompt = 4096;
  r.output = 64;
  r.batch = 8;
  r.decode_attention = a;
  return r;
}

}  // namespace

TEST_SUITE("decode-attention") {
  TEST_CASE("per query head: a GQA model's decode steps read the cache 8x, prefill unchanged") {
    const GpuSpec& h200 = find_gpu("h200");
    const ModelConfig& m = find_model("llama3-70b");
    REQUIRE(m.num_heads == 8 * m.num_kv_heads);
    const ServingForecast grouped = forecast_serving(h200, m, request(DecodeAttention::grouped));
    const ServingForecast per_head =
        forecast_serving(h200, m, request(DecodeAttention::per_query_head));
    CHECK(per_head.prefill_ms == grouped.prefill_ms);
    CHECK(per_head.kv_cache_bytes_per_token == grouped.kv_cache_bytes_per_token);
    CHECK(per_head.memory.total_gb == grouped.memory.total_gb);
    REQUIRE(per_head.decode_ms_at.size() == grouped.decode_ms_at.size());
    const double stream_gbps = detail::streaming_bw_gbps(h200, Predictor::tilecast);
    for (std::size_t i = 0; i < grouped.decode_ms_at.size(); ++i) {
      const auto [cached, ms] = grouped.decode_ms_at[i];
      // K and V of every cached token and the new one, 7 more times per layer, at the streaming
      // rate (the attention is memory-bound here)
      const double extra_bytes = 7.0 * 2 * double(m.num_layers) * 8 * double(cached + 1) *
                                 double(m.num_kv_heads * m.head_dim) * 2;
      INFO("cached " << cached << ": grouped " << ms << " ms, per query head "
                     << per_head.decode_ms_at[i].second << " ms");
      CHECK(per_head.decode_ms_at[i].second - ms ==
            doctest::Approx(extra_bytes / (stream_gbps * 1e6)).epsilon(1e-6));
    }
    CHECK(test::mentions(per_head.caveats, "reads the K/V cache 8 times"));
    CHECK_FALSE(test::mentions(grouped.caveats, "Decode attention"));
  }

  TEST_CASE("a multi-head model (one K/V head per query head) is unchanged") {
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    const ModelConfig& m = find_model("llama2-7b");
    REQUIRE(m.num_heads == m.num_kv_heads);
    const ServingForecast grouped = forecast_serving(a100, m, request(DecodeAttention::grouped));
    const ServingForecast per_head =
        forecast_serving(a100, m, request(DecodeAttention::per_query_head));
    CHECK(per_head.decode_ms_per_token == grouped.decode_ms_per_token);
    CHECK(per_head.total_ms == grouped.total_ms);
    CHECK(test::mentions(per_head.caveats, "reads the K/V cache once"));
  }

  TEST_CASE("the load simulator's decode steps read as the static forecast's") {
    auto run = [](const std::string& attention) {
      const std::string text = api::forecast_serving(
          R"({"gpu": "h200", "model": "llama3-70b", "precision": "fp8", "prompt": 2048, "output": 64,
              "concurrency": 8, "requests": 16, "seed": 0)" +
          (attention.empty() ? std::string() : ", \"decode_attention\": \"" + attention + "\"") +
          "}");
      return nlohmann::json::parse(text);
    };
    const nlohmann::json grouped = run(""), per_head = run("per-query-head");
    CHECK_FALSE(grouped.contains("decode_attention"));
    CHECK(per_head["decode_attention"] == "per-query-head");
    // the first token comes from prefill; every later one pays the extra reads
    CHECK(per_head["tpot_ms"]["p50"].get<double>() > 1.1 * grouped["tpot_ms"]["p50"].get<double>());
    CHECK(per_head["ttft_ms"]["p50"].get<double>() >= grouped["ttft_ms"]["p50"].get<double>());
    CHECK(run("grouped")["tpot_ms"] == grouped["tpot_ms"]);
  }

  TEST_CASE("errors name the field and what is allowed") {
    CHECK_THROWS_WITH_AS(parse_decode_attention("xqa"),
                         doctest::Contains("allowed: grouped, per-query-head"), Error);
    CHECK_THROWS_WITH_AS(
        api::forecast_serving(R"({"gpu": "h100-sxm", "model": "llama2-7b", "prompt": 8,
            "output": 8, "decode_attention": "mmha"})"),
        doctest::Contains("field 'decode_attention'"), Error);
    ServingRequest eager = request(DecodeAttention::per_query_head);
    eager.engine = Engine::eager;
    CHECK_THROWS_WITH_AS(forecast_serving(find_gpu("h100-sxm"), find_model("llama2-7b"), eager),
                         doctest::Contains("the fused engine's"), Error);
  }
}
