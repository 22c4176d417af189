// Tensor math at half rate with FP32 accumulation (kernel/fp32_accumulate.hpp): the GeForce
// entries carry their whitepapers' share and no other GPU does; a compute-bound GEMM there keeps
// the tensor-core GEMM model's time beyond the matrix instructions at the full rate's, by the
// formula; memory-bound GEMMs, the roofline and other precisions are unchanged; bad values are
// named.
#include "kernel/fp32_accumulate.hpp"

#include <doctest/doctest.h>

#include <string>

#include "forecast/model_registry.hpp"
#include "learned/tensor_gemm.hpp"
#include "test_paths.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"

using namespace tilecast;

namespace {

KernelForecast gemm(const GpuSpec& gpu, DataType t, std::int64_t m, std::int64_t n,
                    Predictor p = Predictor::tilecast) {
  const std::int64_t dims[4] = {1, m, n, n};
  return forecast_kernel(gpu, make_kernel(Op::linear, dims, 4, t), p);
}

GpuSpec full_rate(const GpuSpec& gpu) {
  GpuSpec g = gpu;
  g.fp32_accumulate_share = {};
  return g;
}

}  // namespace

TEST_SUITE("fp32_accumulate") {
  TEST_CASE("the GeForce entries, and only they, halve FP32-accumulate tensor math") {
    for (const GpuSpec& g : gpu_catalog()) {
      CAPTURE(g.id);
      // the catalog's prose and its data say the same thing
      const bool says_half =
          g.peak_source.find("at half the FP16-accumulate rate") != std::string::npos;
      CHECK(says_half == !g.fp32_accumulate_source.empty());
      for (const DataType t : {DataType::fp16, DataType::bf16, DataType::fp8}) {
        const bool has_peak = g.peak_tflops_of(t, ComputeUnit::tensor) > 0;
        CHECK(fp32_accumulate_share(g, t) == (says_half && has_peak ? 0.5 : 1));
      }
      CHECK(fp32_accumulate_share(g, DataType::fp32) == 1);
      CHECK(fp32_accumulate_share(g, DataType::fp4) == 1);  // not stated for the RTX 5090
      if (says_half) CHECK(g.fp32_accumulate_source.find("https://") != std::string::npos);
    }
    for (const char* id : {"rtx-3090", "rtx-4080", "rtx-4090", "rtx-5090"})
      CHECK(fp32_accumulate_share(find_gpu(id), DataType::bf16) == 0.5);
    for (const char* id : {"a40", "l40s", "rtx-pro-6000", "rtx-6000-ada", "h100-sxm"})
      CHECK(fp32_accumulate_share(find_gpu(id), DataType::bf16) == 1);
  }

  TEST_CASE("a compute-bound GEMM keeps the time beyond its matrix instructions, by the formula") {
    const TensorGemmModel& m =
        embedded_model_part<TensorGemmModel>("nvidia-half-gemm", "model", parse_tensor_gemm_model);
    REQUIRE(m.valid());
    REQUIRE(m.compute_scale > 1);
    const double expected = (1 + (m.compute_scale - 1) * 0.5) / m.compute_scale;
    for (const char* id : {"rtx-3090", "rtx-4090", "rtx-5090"}) {
      for (const DataType t : {DataType::fp16, DataType::bf16}) {
        CAPTURE(id);
        const GpuSpec& g = find_gpu(id);
        const KernelForecast half = gemm(g, t, 8192, 8192),
                             full = gemm(full_rate(g), t, 8192, 8192);
        const double ratio = (half.latency_ms - m.overhead_ms) / (full.latency_ms - m.overhead_ms);
        INFO("8192^3: " << half.latency_ms << " ms, " << full.latency_ms << " at the full-rate "
                        << "efficiency; ratio " << ratio << ", formula " << expected);
        CHECK(ratio == doctest::Approx(expected).epsilon(1e-9));
        CHECK(half.latency_ms >= half.roofline_ms);
        // the roofline is the catalog's (FP32-accumulate) peak either way
        CHECK(gemm(g, t, 8192, 8192, Predictor::roofline).latency_ms ==
              gemm(full_rate(g), t, 8192, 8192, Predictor::roofline).latency_ms);
      }
    }
    const GpuSpec& g = find_gpu("rtx-4090");
    // one token through an 8192 x 8192 weight: memory-bound, unchanged
    CHECK(gemm(g, DataType::bf16, 1, 8192).latency_ms ==
          gemm(full_rate(g), DataType::bf16, 1, 8192).latency_ms);
    // FP8 halves too (the transfer takes the same model); FP32 GEMMs are not tensor math here
    CHECK(gemm(g, DataType::fp8, 8192, 8192).latency_ms <
          gemm(full_rate(g), DataType::fp8, 8192, 8192).latency_ms);
    CHECK(gemm(g, DataType::fp32, 4096, 4096).latency_ms ==
          gemm(full_rate(g), DataType::fp32, 4096, 4096).latency_ms);
  }

  TEST_CASE("the forecast says so, for the precision that has it") {
    const GpuSpec& g = find_gpu("rtx-4090");
    const std::string c = fp32_accumulate_caveat(g, DataType::bf16);
    CHECK(c.find("at 50 % of its FP16-accumulate rate") != std::string::npos);
    CHECK(c.find(g.fp32_accumulate_source) != std::string::npos);
    CHECK(fp32_accumulate_caveat(g, DataType::fp32).empty());
    CHECK(fp32_accumulate_caveat(find_gpu("l40s"), DataType::bf16).empty());
    const std::int64_t dims[4] = {1, 8192, 8192, 8192};
    const Kernel k = make_kernel(Op::linear, dims, 4, DataType::bf16);
    bool shown = false;
    for (const std::string& s : single_kernel_caveats(g, Predictor::tilecast, k,
                                                      forecast_kernel(g, k, Predictor::tilecast)))
      shown = shown || s == c;
    CHECK(shown);
  }

  TEST_CASE("bad values are named with the field and what is allowed") {
    const std::string peaks = R"(, "peak_tflops": {"bf16": {"tensor": 100}})";
    CHECK(test::catalog_spec_error(peaks + R"(, "fp32_accumulate_share": {"bf16": 0.5})")
              .find("fp32_accumulate_source") != std::string::npos);
    for (const char* bad : {"0", "1.5", "-0.5", "\"half\""})
      CHECK(test::catalog_spec_error(peaks + R"(, "fp32_accumulate_share": {"bf16": )" + bad +
                                     R"(}, "fp32_accumulate_source": "s")")
                .find("allowed: a share above 0 and at most 1") != std::string::npos);
    CHECK(test::catalog_spec_error(
              peaks + R"(, "fp32_accumulate_share": {"fp8": 0.5}, "fp32_accumulate_source": "s")")
              .find("'fp8' is not a data type with a tensor peak") != std::string::npos);
    CHECK(test::catalog_spec_error(
              peaks + R"(, "fp32_accumulate_share": 0.5, "fp32_accumulate_source": "s")")
              .find("must be an object of data types") != std::string::npos);
    CHECK(test::catalog_spec_error(
              peaks + R"(, "fp32_accumulate_share": {"bf16": 0.5}, "fp32_accumulate_source": "s")")
              .empty());
    const GpuSpec& g = find_gpu("rtx-4090");
    const GpuSpec back = parse_gpu_spec(gpu_spec_to_json(g), "round trip");
    CHECK(back.fp32_accumulate_share == g.fp32_accumulate_share);
    CHECK(back.fp32_accumulate_source == g.fp32_accumulate_source);
  }
}
