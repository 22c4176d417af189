// The device memory the driver reports (tilecast/gpu_spec.hpp, device_memory_bytes): the
// catalog's printed totals, the rule for a GPU without one checked against those totals, and
// the memory fields' errors.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "support/helpers.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/gpu_spec.hpp"

using namespace tilecast;

namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;

std::string spec(const std::string& memory_fields) {
  return R"({"id": "test-gpu", "name": "Test GPU", "vendor": "NVIDIA", "num_sm": 108,
    "cores_per_sm": 64, "boost_clock_mhz": 1410, "fp32_gflops": 19500, "mem_gb": 48,
    "mem_bw_gbps": 864, "l2_mb": 40, "source": "test")" +
         memory_fields + "}";
}

std::string spec_error(const std::string& memory_fields) {
  return test::error_of([&] { (void)parse_gpu_spec(spec(memory_fields), "gpu.json"); });
}

}  // namespace

TEST_SUITE("device_memory") {
  TEST_CASE("a printed total is the memory; without one, the memory type's rule") {
    CHECK(device_memory_bytes(find_gpu("h100-sxm")) == 81559 * kBytesPerMiB);
    CHECK(device_memory_bytes(find_gpu("l40s")) == 46068 * kBytesPerMiB);
    CHECK(device_memory_bytes(parse_gpu_spec(spec(R"(, "memory_type": "HBM3")"), "t")) ==
          48 * 1024 * kBytesPerMiB);
    CHECK(device_memory_bytes(parse_gpu_spec(spec(R"(, "memory_type": "GDDR6")"), "t")) ==
          48 * 1024 * 15 / 16 * kBytesPerMiB);
    // GDDR7 keeps its check bits on the chips: binary GB, ECC on or off
    CHECK(device_memory_bytes(parse_gpu_spec(spec(R"(, "memory_type": "GDDR7")"), "t")) ==
          48 * 1024 * kBytesPerMiB);
    CHECK(device_memory_bytes(parse_gpu_spec(spec(""), "t")) == 48e9);  // type not stated
    const GpuSpec g = parse_gpu_spec(
        spec(R"(, "memory_type": "GDDR6", "mem_reported_mib": 49140, "mem_reported_source": "s")"),
        "t");
    CHECK(device_memory_bytes(g) == 49140 * kBytesPerMiB);
    // the catalog format writes the fields back
    CHECK(device_memory_bytes(parse_gpu_spec(gpu_spec_to_json(g), "t")) == 49140 * kBytesPerMiB);
  }

  TEST_CASE("the rule against every printed total in the catalog") {
    // HBM and GDDR7 totals sit within 0.6 % below binary GB (the H100's 81559 of 81920 MiB, the
    // RTX PRO 6000's 97887 of 98304), GDDR5/6/6X ones with ECC on at 15/16 of binary GB; those
    // cards without ECC print 1/16 more than the rule
    const std::set<std::string> without_ecc = {"rtx-3090", "rtx-4090"};
    int checked = 0;
    for (const GpuSpec& g : gpu_catalog()) {
      if (g.mem_reported_mib <= 0) continue;
      CAPTURE(g.id);
      CHECK(!g.mem_reported_source.empty());
      GpuSpec by_rule = g;
      by_rule.mem_reported_mib = 0;
      const double ratio = device_memory_bytes(g) / device_memory_bytes(by_rule);
      const double rule = without_ecc.count(g.id) ? 16.0 / 15 : 1.0;
      CHECK(ratio <= rule);
      CHECK(ratio >= 0.994 * rule);
      ++checked;
    }
    CHECK(checked >= 15);
  }

  TEST_CASE("bad memory fields are named with what is allowed") {
    const std::string type = spec_error(R"(, "memory_type": "HBM3E")");
    CHECK(type.find("gpu.json: field 'memory_type' is 'HBM3E'; allowed: HBM2, HBM2e") == 0);
    CHECK(spec_error(R"(, "mem_reported_mib": 49140)").find("mem_reported_source") !=
          std::string::npos);
    for (const char* v : {"0", "-1", "1e30", "\"lots\""})
      CHECK(spec_error(std::string(R"(, "mem_reported_source": "s", "mem_reported_mib": )") + v)
                .find("mem_reported_mib") != std::string::npos);
  }
}
