// trtllm-bench's own batch limits (serve/simulator/batch_limits.hpp, core/data/engines/
// serving.json "trtllm_bench"): its KV-cache estimate, the caps, the rounding ladders and the
// prompt floor without chunked prefill, each against a hand computation of tuning.py's rules.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "serve/quantize.hpp"
#include "serve/simulator/batch_limits.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;

namespace {

double params_of(const ModelConfig& m) {
  return graph_param_count(build_op_graph(m, make_workload(Mode::inference, 1, 1)));
}

detail::TrtllmBenchLimits limits(const char* gpu, const char* model, int tp, DataType gemm,
                                 bool fp8_kv, double prompt, double output) {
  ServingRequest r;
  r.dtype = gemm;
  r.tp = tp;
  if (fp8_kv) r.kv_cache = DataType::fp8;
  const GpuSpec& g = find_gpu(gpu);
  const ModelConfig& m = find_model(model);
  return detail::trtllm_bench_limits(g, m, tp, detail::serving_types(g, r), params_of(m), 0, prompt,
                                     output, std::int64_t(prompt));
}

// tuning.py's KV-cache estimate by hand: (memory GiB x GPUs - engine GiB) x 0.90 / (GiB per
// token x (prompt + output)); NVML's memory total as nvidia-smi prints it (the catalog's
// mem_reported_mib): an H200 143771 MiB, a B200 183359 MiB.
constexpr double kH200Gib = 143771.0 / 1024, kB200Gib = 183359.0 / 1024;
double requests_by_hand(double mem_gib, int tp, double params, double weight_bytes, double layers,
                        double kv_heads, double head_dim, double kv_bytes, double seq) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const double per_token = 2 * layers * kv_heads * head_dim * kv_bytes / gib;
  return (mem_gib * tp - params * weight_bytes / gib) * 0.90 / (per_token * seq);
}

}  // namespace

TEST_SUITE("trtllm_bench_limits") {
  TEST_CASE("Llama 3.1 8B FP8, FP8 cache, one H200, 128 + 2048: 901 requests -> 1024 / 2048") {
    const auto l = limits("h200", "llama3.1-8b", 1, DataType::fp8, true, 128, 2048);
    const double by_hand = requests_by_hand(kH200Gib, 1, params_of(find_model("llama3.1-8b")), 1.0,
                                            32, 8, 128, 1.0, 2176);
    CHECK(l.kv_requests == doctest::Approx(by_hand).epsilon(1e-9));
    CHECK(l.kv_requests == doctest::Approx(901).epsilon(0.001));
    CHECK(l.max_batch_size == 1024);  // 901 in [256, 1024): up to a multiple of 128
    CHECK(l.max_num_tokens == 2048);  // 901 x (1 + 128 / 2048) = 957: the 2048 floor
  }

  TEST_CASE("the caps: 128 + 128 holds more than 4096 requests -> 4096 / 8192") {
    const auto l = limits("h200", "llama3.1-8b", 1, DataType::fp8, true, 128, 128);
    CHECK(l.kv_requests > 4096);
    CHECK(l.max_batch_size == 4096);
    CHECK(l.max_num_tokens == 8192);  // 4096 x 2 in [8192, ...): a multiple of 1024
  }

  TEST_CASE("few requests: the 64 floor, and a whole prompt per step without chunking") {
    // Llama 3 70B FP8, BF16 cache, one H200, 20000 + 2000: about 10 requests
    const auto l = limits("h200", "llama3-70b", 1, DataType::fp8, false, 20000, 2000);
    CHECK(l.kv_requests < 32);
    CHECK(l.max_batch_size == 64);
    CHECK(l.max_num_tokens == 20000 + 64);
  }

  TEST_CASE("the bytes: an FP8 cache holds twice the requests; NVFP4 weights at half a byte") {
    const auto bf16_kv = limits("h200", "llama3-70b", 1, DataType::fp8, false, 128, 2048);
    const auto fp8_kv = limits("h200", "llama3-70b", 1, DataType::fp8, true, 128, 2048);
    CHECK(fp8_kv.kv_requests == doctest::Approx(2 * bf16_kv.kv_requests).epsilon(1e-9));
    CHECK(bf16_kv.max_batch_size == 128);  // 102 requests below 256: a multiple of 32
    CHECK(fp8_kv.max_batch_size == 224);   // 204 requests
    const auto fp4 = limits("b200", "llama3-70b", 1, DataType::fp4, true, 128, 2048);
    const double by_hand = requests_by_hand(kB200Gib, 1, params_of(find_model("llama3-70b")), 0.5,
                                            80, 8, 128, 1.0, 2176);
    CHECK(fp4.kv_requests == doctest::Approx(by_hand).epsilon(1e-9));
  }

  TEST_CASE("an MXFP4 checkpoint: its stored bytes counted as parameters at 2 bytes each") {
    // gpt-oss's packed experts are U8 safetensors: trtllm-bench's parameter count (the
    // safetensors metadata) holds a packed weight's bytes, at tuning.py's default 2 bytes
    ServingRequest r;
    r.weights = WeightFormat::mxfp4;
    const GpuSpec& g = find_gpu("h200");
    const ModelConfig& m = find_model("gpt-oss-120b");
    const detail::ServingTypes t = detail::serving_types(g, r);
    const double params = params_of(m), experts = detail::quantized_param_count(m, t);
    const auto l = detail::trtllm_bench_limits(g, m, 1, t, params, experts, 1000, 1000, 1000);
    const double stored = params - experts * (1 - (0.5 + 1.0 / 32));
    CHECK(l.kv_requests ==
          doctest::Approx(requests_by_hand(kH200Gib, 1, stored, 2.0, 36, 8, 64, 2.0, 2000))
              .epsilon(1e-9));
    CHECK(stored < 0.6 * params);
    r.weights = WeightFormat::int4;  // weight-only AWQ/GPTQ: not trtllm-bench's to tune
    CHECK_THROWS_WITH_AS(
        detail::trtllm_bench_limits(g, find_model("llama3-8b"), 1, detail::serving_types(g, r),
                                    params, 0, 1000, 1000, 1000),
        doctest::Contains("not weight-only int4"), Error);
  }

  TEST_CASE("every GPU holds a KV head: past 8 GPUs Llama 3 70B's cache per token grows") {
    const auto tp8 = limits("b200", "llama3-70b", 8, DataType::fp4, true, 128, 2048);
    const double by_hand = requests_by_hand(kB200Gib, 8, params_of(find_model("llama3-70b")), 0.5,
                                            80, 8, 128, 1.0, 2176);
    CHECK(tp8.kv_requests == doctest::Approx(by_hand).epsilon(1e-9));
  }

  TEST_CASE("through the simulation: the limits replace max_seqs and max_batch_tokens") {
    const std::string out = api::forecast_serving(
        R"({"gpu": "h200", "model": "llama3.1-8b", "prompt": 128, "output": 64, "precision": "fp8",
            "kv_cache": "fp8", "concurrency": 64, "requests": 64, "scheduler": "no-evict",
            "batch_limits": "trtllm-bench"})");
    CHECK(out.find("\"batch_limits\": \"trtllm-bench\"") != std::string::npos);
    CHECK(out.find("\"max_seqs\": 4096") != std::string::npos);
    CHECK(out.find("Batch limits: trtllm-bench's own") != std::string::npos);
    CHECK_THROWS_WITH_AS(api::forecast_serving(
                             R"({"gpu": "h200", "model": "llama3.1-8b", "prompt": 128, "output": 64,
                "concurrency": 4, "requests": 4, "batch_limits": "trtllm-bench", "max_seqs": 8})"),
                         doctest::Contains("not both"), Error);
    CHECK_THROWS_WITH_AS(api::forecast_serving(
                             R"({"gpu": "h200", "model": "llama3.1-8b", "prompt": 128, "output": 64,
                "concurrency": 4, "requests": 4, "weights": "int4", "batch_limits": "trtllm-bench"})"),
                         doctest::Contains("not weight-only int4"), Error);
    CHECK(parse_batch_limits("trtllm-bench") == BatchLimits::trtllm_bench);
    CHECK_THROWS_WITH_AS(parse_batch_limits("vllm"),
                         "'vllm' is not batch limits; allowed: fixed, trtllm-bench", Error);
  }
}
