// The vendor-stated DRAM efficiency (core/src/kernel/dram_efficiency.cpp): which GPUs state
// one, how it scales the bandwidth the learned models measure against, and its validation.
#include "kernel/dram_efficiency.hpp"

#include <doctest/doctest.h>

#include <string>

#include "kernel/library_profile.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

TEST_SUITE("dram_efficiency") {
  TEST_CASE("a stated efficiency scales the peak against the profile's typical share") {
    const LibraryProfile& cuda = cuda_library_profile();
    REQUIRE(cuda.typical_dram_efficiency > 0.5);
    const GpuSpec& v100 = find_gpu("v100-pcie");
    const GpuSpec& p100 = find_gpu("p100-pcie");
    CHECK(v100.dram_efficiency == 0.95);
    CHECK(p100.dram_efficiency == 0.78);
    for (const char* id : {"a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm"}) {
      CAPTURE(id);
      CHECK(find_gpu(id).dram_efficiency == 0.95);  // the A100 datasheet's 95 %
    }
    CHECK(learned_mem_bw_gbps(v100, cuda) ==
          doctest::Approx(900 * 0.95 / cuda.typical_dram_efficiency));
    CHECK(learned_mem_bw_gbps(p100, cuda) < p100.mem_bw_gbps);
    CHECK(learned_mem_bw_gbps(v100, cuda) > v100.mem_bw_gbps);
    // The typical share is the mean of the stated ones, one per statement (V100, P100, A100;
    // its source says so).
    CHECK(cuda.typical_dram_efficiency == doctest::Approx((0.95 + 0.78 + 0.95) / 3).epsilon(0.001));
    // No statement, or a profile without a typical share: the datasheet peak.
    for (const char* id : {"t4", "p4", "a30", "h200", "mi210"}) {
      CAPTURE(id);
      const GpuSpec& g = find_gpu(id);
      CHECK(g.dram_efficiency == 0);
      CHECK(learned_mem_bw_gbps(g, library_profile_for(g)) == g.mem_bw_gbps);
    }
    LibraryProfile silent = cuda;
    silent.typical_dram_efficiency = 0;
    CHECK(learned_mem_bw_gbps(v100, silent) == v100.mem_bw_gbps);
  }

  TEST_CASE("every statement carries a source; a dataset device file takes the catalog's") {
    for (const GpuSpec& g : gpu_catalog())
      if (g.dram_efficiency > 0) {
        CAPTURE(g.id);
        CHECK(g.dram_efficiency_source.find("http") != std::string::npos);
      }
    const GpuSpec d = parse_gpu_spec(R"({"Device": "Tesla V100-PCIE-32GB", "Dev_Mem": 32,
      "Mem_Bw": 900, "Num_Sm": 80, "Core_Per_SM": 64, "Freq": 1370, "SingleFLOPs": 14029,
      "L2Cache": 6})",
                                     "Tesla_V100-PCIE-32GB.json");
    CHECK(d.dram_efficiency == 0.95);
    CHECK(parse_gpu_spec(gpu_spec_to_json(find_gpu("p100-pcie")), "round trip").dram_efficiency ==
          0.78);
  }

  TEST_CASE("bad values are named with the field and what is allowed") {
    CHECK(test::catalog_spec_error(R"(, "dram_efficiency": 1.2, "dram_efficiency_source": "s")")
              .find("'dram_efficiency' is 1.2; allowed: 0.3 to 1") != std::string::npos);
    CHECK(test::catalog_spec_error(R"(, "dram_efficiency": 0.9)").find("dram_efficiency_source") !=
          std::string::npos);
    CHECK(test::catalog_spec_error(R"(, "dram_efficiency": 0.9, "dram_efficiency_source": "s")")
              .empty());
  }
}
