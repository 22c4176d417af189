// The FP32 instruction-issue ceiling (core/src/kernel/issue_ceiling.cpp): which GPUs and kernels
// it holds back, that the training GPUs are untouched, and that forecasts follow it.
#include "kernel/issue_ceiling.hpp"

#include <doctest/doctest.h>

#include <string>

#include "kernel/library_profile.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"

using namespace tilecast;

TEST_SUITE("issue_ceiling") {
  TEST_CASE("FP32 GEMMs on one-slot SMs are held to the library's FMA share; nothing else is") {
    const LibraryProfile& cuda = cuda_library_profile();
    REQUIRE(cuda.sgemm_fma_instruction_share > 0.5);
    const Kernel gemm = parse_kernel("linear", "1,4096,4096,4096");
    const Kernel bmm = parse_kernel("bmm", "16,512,512,64");
    const Kernel add = parse_kernel("add", "4096,4096");
    for (const char* id : {"h200", "h100-sxm", "l4", "a40", "rtx-4090", "b200"}) {
      CAPTURE(id);
      const GpuSpec& gpu = find_gpu(id);
      CHECK(gpu.fp32_issue_slots_per_warp_fma == 1);
      CHECK(fp32_issue_ceiling(gpu, gemm, cuda) == cuda.sgemm_fma_instruction_share);
      CHECK(fp32_issue_ceiling(gpu, bmm, cuda) == cuda.sgemm_fma_instruction_share);
      CHECK(fp32_issue_ceiling(gpu, add, cuda) == 1.0);
      Kernel half = gemm;
      half.dtype = DataType::fp16;  // tensor cores: another pipe
      CHECK(fp32_issue_ceiling(gpu, half, cuda) == 1.0);
    }
    // Every GPU the FP32 models were trained on has a spare slot per FMA: no ceiling, so the
    // trained weights saw none and their forecasts are unchanged.
    for (const char* id :
         {"p4", "p100-pcie", "v100-pcie", "t4", "a100-40gb-pcie", "a100-80gb-pcie"}) {
      CAPTURE(id);
      CHECK(find_gpu(id).fp32_issue_slots_per_warp_fma == 2);
      CHECK(fp32_issue_ceiling(find_gpu(id), gemm, cuda) == 1.0);
    }
    // Unstated on either side: no ceiling.
    LibraryProfile silent = cuda;
    silent.sgemm_fma_instruction_share = 0;
    CHECK(fp32_issue_ceiling(find_gpu("h200"), gemm, silent) == 1.0);
    GpuSpec custom = find_gpu("h200");
    custom.fp32_issue_slots_per_warp_fma = 0;
    CHECK(fp32_issue_ceiling(custom, gemm, cuda) == 1.0);
  }

  TEST_CASE("a large FP32 GEMM forecast slows by the ceiling where it is compute-bound") {
    const Kernel gemm = parse_kernel("linear", "1,8192,8192,8192");
    GpuSpec spare = find_gpu("h200");
    spare.fp32_issue_slots_per_warp_fma = 2;
    const double with = forecast_kernel(find_gpu("h200"), gemm).latency_ms;
    const double without = forecast_kernel(spare, gemm).latency_ms;
    CHECK(with > without * 1.03);
    CHECK(with <= without / cuda_library_profile().sgemm_fma_instruction_share * 1.0001);
  }

  TEST_CASE("forecasts say so: FP32 on one-slot GPUs only") {
    const auto says = [](const char* id, DataType t) {
      for (const std::string& c : forecast_caveats(find_gpu(id), Predictor::tilecast, t))
        if (c.find("issue slot") != std::string::npos) return true;
      return false;
    };
    CHECK(says("h100-sxm", DataType::fp32));
    CHECK(says("l4", DataType::fp32));
    CHECK_FALSE(says("h100-sxm", DataType::bf16));
    CHECK_FALSE(says("a100-80gb-sxm", DataType::fp32));
    CHECK_FALSE(says("mi300x", DataType::fp32));
    CHECK(forecast_caveats(find_gpu("h100-sxm"), Predictor::roofline).empty());
  }

  TEST_CASE("every NVIDIA catalog GPU states its slots with a source; bad values are named") {
    for (const GpuSpec& g : gpu_catalog()) {
      if (g.vendor != "NVIDIA") continue;
      CAPTURE(g.id);
      CHECK((g.fp32_issue_slots_per_warp_fma == 1 || g.fp32_issue_slots_per_warp_fma == 2));
      CHECK(g.issue_source.find("http") != std::string::npos);
      // 128 FP32 lanes per SM behind four schedulers is the one-slot layout.
      if (g.fp32_issue_slots_per_warp_fma == 1) CHECK(g.cores_per_sm == 128);
    }
    CHECK(test::catalog_spec_error(R"(, "fp32_issue_slots_per_warp_fma": 0, "issue_source": "s")")
              .find("fp32_issue_slots_per_warp_fma") != std::string::npos);
    CHECK(
        test::catalog_spec_error(R"(, "fp32_issue_slots_per_warp_fma": 1)").find("issue_source") !=
        std::string::npos);
    CHECK(test::catalog_spec_error(R"(, "fp32_issue_slots_per_warp_fma": 1, "issue_source": "s")")
              .empty());
  }
}
