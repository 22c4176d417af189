// Quantized serving (issue 30 item 4; serve/quantize.hpp): W8A8 FP8 prefill faster than BF16 on
// FP8 tensor cores, weights 1 byte and the largest batch following, an FP8 KV cache halving the
// cache, weight-only INT4/INT8 decode reading packed weights, the load simulator and the JSON API
// taking the same fields, and the errors naming what is allowed.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "serve/quantize.hpp"
#include "support/helpers.hpp"
#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;

namespace {

ServingRequest quantized_request(DataType t, std::int64_t batch = 8) {
  ServingRequest r;
  r.prompt = 2048;
  r.output = 128;
  r.batch = batch;
  r.dtype = t;
  return r;
}

}  // namespace

TEST_SUITE("serving-quantized") {
  TEST_CASE("fp8 (W8A8) on an H100: faster prefill, 1-byte weights, a larger batch") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const ModelConfig& m = find_model("llama3-8b");
    const ServingForecast bf16 = forecast_serving(h100, m, quantized_request(DataType::bf16));
    const ServingForecast fp8 = forecast_serving(h100, m, quantized_request(DataType::fp8));
    INFO("prefill bf16 " << bf16.prefill_ms << " fp8 " << fp8.prefill_ms << "; decode bf16 "
                         << bf16.decode_ms_per_token << " fp8 " << fp8.decode_ms_per_token);
    CHECK(fp8.prefill_ms < bf16.prefill_ms);
    CHECK(fp8.prefill_ms > bf16.prefill_ms / 2);  // attention, norms and the head stay BF16
    CHECK(fp8.decode_ms_per_token < bf16.decode_ms_per_token);  // half the weight bytes
    // the layers' linears at 1 byte; the embedding and the untied head stay BF16
    CHECK(fp8.memory.weights_gb < bf16.memory.weights_gb);
    CHECK(fp8.memory.weights_gb > bf16.memory.weights_gb / 2);
    CHECK(fp8.max_batch > bf16.max_batch);
    CHECK(fp8.kv_cache_bytes_per_token == bf16.kv_cache_bytes_per_token);
    CHECK(test::mentions(fp8.caveats, "W8A8"));
    CHECK(test::mentions(fp8.caveats, "Transferred model"));  // FP8 GEMMs: no FP8 measurement
    CHECK_FALSE(test::mentions(bf16.caveats, "Transferred model"));

    // an FP8 KV cache: half the bytes per token, more sequences fit, decode reads less
    ServingRequest kv = quantized_request(DataType::fp8);
    kv.kv_cache = DataType::fp8;
    const ServingForecast fp8kv = forecast_serving(h100, m, kv);
    CHECK(fp8kv.kv_cache_bytes_per_token == doctest::Approx(fp8.kv_cache_bytes_per_token / 2));
    CHECK(fp8kv.max_batch > fp8.max_batch);
    CHECK(fp8kv.decode_ms_per_token <= fp8.decode_ms_per_token);
  }

  TEST_CASE("fp4 (W4A4, NVFP4) on a B200: faster than fp8, 0.5625-byte weights; Hopper refuses") {
    const GpuSpec& b200 = find_gpu("b200");
    const ModelConfig& m = find_model("llama3-70b");
    const ServingForecast fp8 = forecast_serving(b200, m, quantized_request(DataType::fp8));
    const ServingForecast fp4 = forecast_serving(b200, m, quantized_request(DataType::fp4));
    INFO("prefill fp8 " << fp8.prefill_ms << " fp4 " << fp4.prefill_ms << "; decode fp8 "
                        << fp8.decode_ms_per_token << " fp4 " << fp4.decode_ms_per_token);
    CHECK(fp4.prefill_ms < fp8.prefill_ms);
    CHECK(fp4.decode_ms_per_token < fp8.decode_ms_per_token);
    // the layers' linears at 0.5625 bytes against 1: the quantized weights' share shrinks by
    // that ratio, the embedding and the head stay BF16
    const double quantized_gb =
        detail::quantized_param_count(
            m, detail::serving_types(b200, quantized_request(DataType::fp4))) /
        1e9;
    CHECK(fp8.memory.weights_gb - fp4.memory.weights_gb ==
          doctest::Approx(quantized_gb * (1 - 0.5625)).epsilon(0.01));
    CHECK(fp4.max_batch >= fp8.max_batch);
    CHECK(test::mentions(fp4.caveats, "W4A4 fp4"));
    CHECK(test::mentions(fp4.caveats, "Transferred model"));
    CHECK(dtype_bytes(DataType::fp4) == 0.5625);
    try {
      forecast_serving(find_gpu("h100-sxm"), m, quantized_request(DataType::fp4));
      FAIL("an H100 has no FP4 tensor cores");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find("has no fp4 units") != std::string::npos);
      CHECK(what.find("Blackwell (b200, gb200, rtx-5090, rtx-pro-6000)") != std::string::npos);
      CHECK(what.find("CDNA 4 (mi355x)") != std::string::npos);
    }
  }

  TEST_CASE(
      "a mixture's quantized weights are every expert's, not only those one token routes to") {
    // all but the embedding, the head, attention and the routers: the experts are quantized
    for (const char* id : {"mixtral-8x7b", "qwen3-30b-a3b", "gpt-oss-20b"}) {
      CAPTURE(id);
      const ModelConfig& m = find_model(id);
      const double h = double(m.hidden_size), v = double(m.vocab_size);
      const double q = double(m.num_heads * m.head_dim), kv = double(m.num_kv_heads * m.head_dim);
      const double attention = double(m.num_layers) * (2 * h * q + 2 * h * kv);
      const double experts = m.params() - v * h * (m.tie_word_embeddings ? 1 : 2) - attention;
      CHECK(detail::quantized_param_count(m, detail::ServingTypes{}) >= 0.99 * experts);
      CHECK(detail::quantized_param_count(m, detail::ServingTypes{}) <= m.params());
    }
  }

  TEST_CASE("fp8 needs FP8 tensor cores: the error names the GPU and those that have them") {
    const ModelConfig& m = find_model("llama3-8b");
    CHECK_THROWS_WITH_AS(
        forecast_serving(find_gpu("a100-80gb-sxm"), m, quantized_request(DataType::fp8)),
        doctest::Contains("has no fp8 units"), Error);
    try {
      (void)forecast_serving(find_gpu("a100-80gb-sxm"), m, quantized_request(DataType::fp8));
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find("Hopper (") != std::string::npos);
      CHECK(what.find("h100-sxm") != std::string::npos);
      CHECK(what.find("CDNA 3 (mi300x") != std::string::npos);
    }
    CHECK_THROWS_WITH_AS(
        forecast_serving(find_gpu("h100-sxm"), m, quantized_request(DataType::int8)),
        doctest::Contains("serving takes fp32, fp16, bf16, fp8"), Error);
    ServingRequest bad = quantized_request(DataType::bf16);
    bad.kv_cache = DataType::fp16;
    CHECK_THROWS_WITH_AS(forecast_serving(find_gpu("h100-sxm"), m, bad),
                         doctest::Contains("allowed: bf16"), Error);
    bad = quantized_request(DataType::fp8);
    bad.weights = WeightFormat::int4;
    CHECK_THROWS_WITH_AS(forecast_serving(find_gpu("h100-sxm"), m, bad),
                         doctest::Contains("weight-only"), Error);
    CHECK_THROWS_WITH_AS(parse_weight_format("int3"),
                         doctest::Contains("allowed: native, int8, int4"), Error);
  }

  TEST_CASE("weight-only int4 / int8: decode reads packed weights, prefill pays a dequantize") {
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    const ModelConfig& m = find_model("llama3-8b");
    ServingRequest r = quantized_request(DataType::fp16, 1);
    const ServingForecast fp16 = forecast_serving(a100, m, r);
    r.weights = WeightFormat::int8;
    const ServingForecast int8 = forecast_serving(a100, m, r);
    r.weights = WeightFormat::int4;
    const ServingForecast int4 = forecast_serving(a100, m, r);
    INFO("decode fp16 " << fp16.decode_ms_per_token << " int8 " << int8.decode_ms_per_token
                        << " int4 " << int4.decode_ms_per_token << "; prefill fp16 "
                        << fp16.prefill_ms << " int4 " << int4.prefill_ms);
    // batch-1 decode is weight-bound: fewer bytes, faster, but the head, attention and the
    // fixed costs stay
    CHECK(int8.decode_ms_per_token < fp16.decode_ms_per_token);
    CHECK(int4.decode_ms_per_token < int8.decode_ms_per_token);
    CHECK(int4.decode_ms_per_token > fp16.decode_ms_per_token / 4);
    // prefill at the half peak plus the dequantize kernels: slower than fp16
    CHECK(int4.prefill_ms > fp16.prefill_ms);
    CHECK(int4.prefill_ms < 1.5 * fp16.prefill_ms);
    CHECK(int4.memory.weights_gb < int8.memory.weights_gb);
    CHECK(int8.memory.weights_gb < fp16.memory.weights_gb);
    CHECK(int4.max_batch > fp16.max_batch);
    CHECK(test::mentions(int4.caveats, "weight-only int4"));
  }

  TEST_CASE("mxfp4 (gpt-oss's checkpoint): the routed experts packed, the rest BF16") {
    const ModelConfig& m = find_model("gpt-oss-120b");
    CHECK(m.checkpoint_weights == "mxfp4");
    const GpuSpec& h100 = find_gpu("h100-sxm");
    ServingRequest r = quantized_request(DataType::bf16, 64);
    r.weights = WeightFormat::mxfp4;
    const detail::ServingTypes t = detail::serving_types(h100, r);
    CHECK(t.weight_bytes == 0.5 + 1.0 / 32);  // E2M1 values and an E8M0 scale per 32
    CHECK_FALSE(t.w4a8);
    // the experts' weights only: all of int4's count but the attention's projections
    const double experts = detail::quantized_param_count(m, t);
    const double linears = detail::quantized_param_count(m, detail::ServingTypes{});
    const double h = double(m.hidden_size), q = double(m.num_heads * m.head_dim),
                 kv = double(m.num_kv_heads * m.head_dim);
    const double attention = double(m.num_layers) * (2 * h * q + 2 * h * kv);
    CHECK(linears - experts == doctest::Approx(attention).epsilon(0.01));
    // one H100 holds it as shipped (about 61 GB of experts and 4 GB of the rest), not in BF16
    const ServingForecast packed = forecast_serving(h100, m, r);
    r.weights = WeightFormat::native;
    const ServingForecast bf16 = forecast_serving(h100, m, r);
    CHECK(packed.memory.weights_gb ==
          doctest::Approx(experts * t.weight_bytes / 1e9 + (m.params() - experts) * 2 / 1e9)
              .epsilon(0.01));
    CHECK(packed.memory.fits);
    CHECK_FALSE(bf16.memory.fits);
    // decode reads the packed experts: faster; prefill runs the experts at the BF16 peak with
    // the upcast inside the GEMM (no dequantize kernel)
    CHECK(packed.decode_ms_per_token < bf16.decode_ms_per_token);
    CHECK(packed.prefill_ms <= bf16.prefill_ms);
    CHECK(test::mentions(packed.caveats, "mxfp4 experts"));
    CHECK(test::mentions(packed.caveats, "W4A16"));
  }

  TEST_CASE("mxfp4 on Blackwell: the expert GEMMs at FP8 behind an MXFP8 activation quantize") {
    const GpuSpec& b200 = find_gpu("b200");
    const ModelConfig& m = find_model("gpt-oss-20b");
    ServingRequest r = quantized_request(DataType::bf16, 256);
    r.weights = WeightFormat::mxfp4;
    const detail::ServingTypes t = detail::serving_types(b200, r);
    CHECK(t.w4a8);
    Workload w = make_workload(Mode::prefill, 256, 2048);
    const OpGraph g = detail::serving_graph(b200, m, w, Engine::fused, t);
    int quantize = 0, fp8_experts = 0, bf16_linears = 0;
    for (const GraphSection& s : g.sections)
      for (const GraphOp& o : s.ops) {
        if (o.name.find("activation quantize") != std::string::npos) ++quantize;
        if (o.routed_expert && o.kernel.dtype == DataType::fp8) ++fp8_experts;
        if (!o.routed_expert && o.kernel.op == Op::linear && o.kernel.dtype == DataType::bf16)
          ++bf16_linears;
      }
    CHECK(quantize == fp8_experts);  // one before each expert GEMM
    CHECK(fp8_experts > 0);
    CHECK(bf16_linears > 0);  // attention, router and head stay BF16
    const ServingForecast f = forecast_serving(b200, m, r);
    CHECK(test::mentions(f.caveats, "W4A8"));
  }

  TEST_CASE("mxfp4 needs routed experts; a config names only a quantization tilecast models") {
    ServingRequest r = quantized_request(DataType::bf16);
    r.weights = WeightFormat::mxfp4;
    try {
      (void)forecast_serving(find_gpu("h100-sxm"), find_model("llama3-8b"), r);
      FAIL("mxfp4 on a dense model should be refused");
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find("no routed experts") != std::string::npos);
      CHECK(what.find("allowed for it: native, int8, int4") != std::string::npos);
    }
    nlohmann::json cfg =
        nlohmann::json::parse(test::read_file(test::repo_dir() + "/model_zoo/gpt-oss-20b.json"));
    cfg["quantization_config"] = {{"quant_method", "awq"}, {"bits", 4}};
    CHECK_THROWS_WITH_AS(parse_model_config(cfg.dump(), "cfg.json"),
                         doctest::Contains("quant_method 'awq') is not modelled; allowed: mxfp4"),
                         Error);
    cfg.erase("quantization_config");
    CHECK(parse_model_config(cfg.dump(), "cfg.json").checkpoint_weights.empty());
  }

  TEST_CASE("mxfp4 on any top-k mixture: transformers 4's per-expert MLPs are routed experts too") {
    // Mixtral's eager graph (transformers 4: each expert an nn.Module MLP) and the fused one
    // both mark the experts' linears, so the experts-only format covers the same weights
    const ModelConfig& m = find_model("mixtral-8x7b");
    REQUIRE(m.transformers_major < 5);
    const OpGraph eager = build_op_graph(m, make_workload(Mode::inference, 64, 1));
    double routed = 0;
    for (const GraphSection& s : eager.sections)
      for (const GraphOp& o : s.ops)
        if (o.routed_expert) {
          CHECK(o.name.find("expert") != std::string::npos);
          routed += o.param_elements * double(s.count);
        }
    const double per_expert = 3.0 * double(m.hidden_size) * double(m.expert_intermediate_size);
    CHECK(routed == doctest::Approx(per_expert * double(m.num_experts * m.num_layers)));
    ServingRequest r = quantized_request(DataType::bf16);
    r.weights = WeightFormat::mxfp4;
    const detail::ServingTypes t = detail::serving_types(find_gpu("h100-sxm"), r);
    CHECK(detail::quantized_param_count(m, t) == doctest::Approx(routed));
    for (Engine e : {Engine::fused, Engine::eager}) {
      r.engine = e;
      const ServingForecast f = forecast_serving(find_gpu("h100-sxm"), m, r);
      CHECK(f.memory.weights_gb ==
            doctest::Approx(routed * t.weight_bytes / 1e9 + (m.params() - routed) * 2 / 1e9)
                .epsilon(0.01));
    }
  }

  TEST_CASE("the JSON API serves a checkpoint's own format unless told: gpt-oss's MXFP4") {
    nlohmann::json req = {{"gpu", "h100-sxm"},
                          {"model", "gpt-oss-120b"},
                          {"prompt", 1024},
                          {"output", 128},
                          {"batch", 8}};
    nlohmann::json j = nlohmann::json::parse(api::forecast_serving(req.dump()));
    CHECK(j["weights"] == "mxfp4");
    CHECK(j["memory"]["fits"] == true);
    req["weights"] = "native";
    j = nlohmann::json::parse(api::forecast_serving(req.dump()));
    CHECK_FALSE(j.contains("weights"));
    CHECK(j["memory"]["fits"] == false);
    // fp8 and fp4 quantize every linear themselves: the checkpoint's format yields to them
    req.erase("weights");
    req["gpu"] = "b200";
    req["precision"] = "fp4";
    j = nlohmann::json::parse(api::forecast_serving(req.dump()));
    CHECK(j["precision"] == "fp4");
    CHECK_FALSE(j.contains("weights"));
  }

  TEST_CASE("the load simulator and the JSON API take the same fields") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const ModelConfig& m = find_model("llama3-8b");
    LoadRequest lr;
    lr.serving.prompt = 1024;
    lr.serving.output = 64;
    lr.arrivals = Arrivals::poisson;
    lr.qps = 8;
    lr.requests = 64;
    const LoadForecast bf16 = simulate_serving(h100, m, lr);
    lr.serving.dtype = DataType::fp8;
    lr.serving.kv_cache = DataType::fp8;
    const LoadForecast fp8 = simulate_serving(h100, m, lr);
    CHECK(fp8.ttft_ms.p50 < bf16.ttft_ms.p50);
    CHECK(fp8.tpot_ms.p50 < bf16.tpot_ms.p50);

    nlohmann::json req = {{"gpu", "h100-sxm"}, {"model", "llama3-8b"}, {"prompt", 512},
                          {"output", 32},      {"batch", 4},           {"precision", "fp8"},
                          {"kv_cache", "fp8"}};
    nlohmann::json j = nlohmann::json::parse(api::forecast_serving(req.dump()));
    CHECK(j["precision"] == "fp8");
    CHECK(j["kv_cache"] == "fp8");
    CHECK_FALSE(j.contains("weights"));
    req = {{"gpu", "a100-80gb-sxm"}, {"model", "llama3-8b"}, {"prompt", 512}, {"output", 32},
           {"weights", "int4"},      {"concurrency", 4},     {"requests", 8}};
    j = nlohmann::json::parse(api::forecast_serving(req.dump()));
    CHECK(j["weights"] == "int4");
    CHECK(j["ttft_ms"]["p50"].get<double>() > 0);
    req["weights"] = "int2";
    CHECK_THROWS_WITH_AS(api::forecast_serving(req.dump()), doctest::Contains("field 'weights'"),
                         Error);
    // the capacity plan takes them too
    const nlohmann::json cap = {
        {"gpu", "h100-sxm"}, {"model", "llama3-8b"}, {"prompt", 512},       {"output", 64},
        {"qps", 2},          {"requests", 20},       {"slo_ttft_ms", 2000}, {"slo_tpot_ms", 200},
        {"max_gpus", 2},     {"precision", "fp8"},   {"kv_cache", "fp8"}};
    j = nlohmann::json::parse(api::plan_capacity(cap.dump()));
    CHECK(j["precision"] == "fp8");
    CHECK(j["kv_cache"] == "fp8");
    nlohmann::json bad_cap = cap;
    bad_cap["weights"] = "int3";
    CHECK_THROWS_WITH_AS(api::plan_capacity(bad_cap.dump()), doctest::Contains("field 'weights'"),
                         Error);
    // unquantized responses carry no new fields
    req = {{"gpu", "h100-sxm"}, {"model", "llama3-8b"}, {"prompt", 512}, {"output", 32}};
    j = nlohmann::json::parse(api::forecast_serving(req.dump()));
    CHECK_FALSE(j.contains("kv_cache"));
    CHECK_FALSE(j.contains("weights"));
  }
}
