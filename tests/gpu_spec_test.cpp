#include "tilecast/gpu_spec.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "support/helpers.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

const char* kCatalogSpec = R"({
  "id": "test-gpu", "name": "Test GPU", "vendor": "NVIDIA", "architecture": "Ampere",
  "num_sm": 108, "cores_per_sm": 64, "boost_clock_mhz": 1410, "fp32_gflops": 19500,
  "mem_gb": 80, "mem_bw_gbps": 1935, "l2_mb": 40, "source": "test"})";

std::string spec_error(const std::string& text) {
  return test::error_of([&] { (void)parse_gpu_spec(text, "gpu.json"); });
}

std::string with_field(const std::string& field, const std::string& value) {
  std::string s = kCatalogSpec;
  const auto pos = s.find("\"" + field + "\": ");
  REQUIRE(pos != std::string::npos);
  const auto start = pos + field.size() + 4;
  const auto end = s.find_first_of(",}", start);
  return s.substr(0, start) + value + s.substr(end);
}

}  // namespace

TEST_SUITE("gpu_spec") {
  TEST_CASE("reads every dataset device file") {
    for (const char* stem :
         {"Tesla_P4", "Tesla_T4", "Tesla_P100-PCIE-16GB", "Tesla_V100-PCIE-32GB",
          "NVIDIA_A100-PCIE-40GB", "NVIDIA_A100_80GB_PCIe", "AMD_Instinct_MI210"}) {
      const std::string path = test::data_dir() + "/devices/" + stem + ".json";
      GpuSpec g = parse_gpu_spec(test::read_file(path), path);
      CHECK(g.num_sm > 0);
      CHECK(g.fp32_gflops > 0);
      CHECK(g.mem_bw_gbps > 0);
    }
    const std::string mi = test::data_dir() + "/devices/AMD_Instinct_MI210.json";
    GpuSpec amd = parse_gpu_spec(test::read_file(mi), mi);
    CHECK(amd.vendor == "AMD");
    CHECK(amd.fp32_matrix_gflops == doctest::Approx(45300));
    CHECK(amd.fp32_gflops == doctest::Approx(22600));
  }

  // Benchmark results name GPUs with their memory ("NVIDIA B200-SXM-180GB", "MI300X 192GB"):
  // the rest of the name gives the GPU when its memory is that size, else the one GPU whose names
  // hold the other words and whose memory is that size.
  TEST_CASE("a GPU named with its memory's size") {
    const std::pair<const char*, const char*> named[] = {
        {"H100 80GB", "h100-sxm"},
        {"H100-SXM-80GB", "h100-sxm"},
        {"h100-80gb", "h100-sxm"},
        {"H100 PCIe 80GB", "h100-pcie"},
        {"H100 94GB", "h100-nvl"},
        {"H100-NVL-94GB", "h100-nvl"},
        {"H200-SXM-141GB", "h200"},
        {"B200-SXM-180GB", "b200"},
        {"B200 192GB", "b200"},
        {"MI300X-192GB", "mi300x"},
        {"A100-SXM-80GB", "a100-80gb-sxm"},
        {"A100 PCIe 80GB", "a100-80gb-pcie"},
        {"RTX 4090 24GB", "rtx-4090"},
        {"L4 24GB", "l4"},
    };
    for (const auto& [name, id] : named) {
      CAPTURE(name);
      const GpuSpec* g = lookup_gpu(name);
      REQUIRE(g != nullptr);
      CHECK(g->id == id);
    }
    // a size no GPU of that name has, or a size alone, names none; the error lists the GPUs of
    // that name with their memory
    CHECK(lookup_gpu("H100 40GB") == nullptr);
    CHECK(lookup_gpu("80GB") == nullptr);
    CHECK(lookup_gpu("zzz 80GB") == nullptr);
    CHECK(test::error_of([] { find_gpu("H100 40GB"); }) ==
          "unknown GPU 'H100 40GB': the catalog GPUs of that name are h100-nvl (94 GB), h100-pcie "
          "(80 GB) or h100-sxm (80 GB); name one by its id");
    CHECK(test::error_of([] { find_gpu("MI300X 256GB"); }) ==
          "unknown GPU 'MI300X 256GB': the catalog GPU of that name is mi300x (192 GB)");
  }

  TEST_CASE("reads the catalog format") {
    GpuSpec g = parse_gpu_spec(kCatalogSpec, "gpu.json");
    CHECK(g.id == "test-gpu");
    CHECK(g.num_sm == 108);
    CHECK(g.fp32_matrix_gflops == g.fp32_gflops);
    GpuSpec round = parse_gpu_spec(gpu_spec_to_json(g), "again");
    CHECK(round.mem_bw_gbps == g.mem_bw_gbps);
    CHECK(round.name == g.name);
  }

  TEST_CASE("residency and L1 facts: optional in the catalog, taken from it for dataset files") {
    GpuSpec plain = parse_gpu_spec(kCatalogSpec, "gpu.json");
    CHECK(plain.max_threads_per_sm == 0);
    CHECK(plain.l1_kb_per_sm == 0);
    std::string text = kCatalogSpec;
    text.insert(text.rfind('}'), R"(, "max_threads_per_sm": 1536, "l1_kb_per_sm": 128)");
    GpuSpec g = parse_gpu_spec(text, "gpu.json");
    CHECK(g.max_threads_per_sm == 1536);
    CHECK(g.l1_kb_per_sm == 128);
    GpuSpec round = parse_gpu_spec(gpu_spec_to_json(g), "again");
    CHECK(round.max_threads_per_sm == 1536);
    CHECK(round.l1_kb_per_sm == 128);
    for (const char* bad : {R"(, "l1_kb_per_sm": -1)", R"(, "l1_kb_per_sm": 0)",
                            R"(, "max_threads_per_sm": 10.5)", R"(, "max_threads_per_sm": 0)"}) {
      std::string t = kCatalogSpec;
      t.insert(t.rfind('}'), bad);
      CAPTURE(bad);
      const std::string e = spec_error(t);
      CHECK(e.find("gpu.json") == 0);
      CHECK((e.find("l1_kb_per_sm") != std::string::npos ||
             e.find("max_threads_per_sm") != std::string::npos));
    }
    const std::string t4_path = test::data_dir() + "/devices/Tesla_T4.json";
    const GpuSpec t4 = parse_gpu_spec(test::read_file(t4_path), t4_path);
    CHECK(t4.max_threads_per_sm == 1024);
    CHECK(t4.l1_kb_per_sm == 64);
    const std::string p4_path = test::data_dir() + "/devices/Tesla_P4.json";
    const GpuSpec p4 = parse_gpu_spec(test::read_file(p4_path), p4_path);
    CHECK(p4.max_threads_per_sm == 2048);
    CHECK(p4.l1_kb_per_sm == 0);  // Pascal: global loads bypass L1
  }

  TEST_CASE("bad fields are named with the file") {
    CHECK(spec_error("{not json").find("gpu.json: not valid JSON") == 0);
    CHECK(spec_error("[1,2]").find("expected a JSON object") != std::string::npos);
    for (const char* v : {"0", "-5", "1e30", "\"many\"", "null"}) {
      const std::string e = spec_error(with_field("num_sm", v));
      CAPTURE(v);
      CHECK(e.find("gpu.json") == 0);
      CHECK(e.find("num_sm") != std::string::npos);
    }
    CHECK(spec_error(with_field("num_sm", "10.5")).find("integer") != std::string::npos);
    CHECK(spec_error(with_field("mem_bw_gbps", "-1")).find("mem_bw_gbps") != std::string::npos);
    CHECK(spec_error(with_field("fp32_gflops", "0")).find("fp32_gflops") != std::string::npos);
    CHECK(spec_error(with_field("vendor", "\"Intel\"")).find("vendor") != std::string::npos);
    CHECK(
        spec_error(
            R"({"Device":"X","Dev_Mem":8,"Mem_Bw":192,"Num_Sm":40,"Core_Per_SM":64,"Freq":1113,"L2Cache":2})")
            .find("SingleFLOPsVEC") != std::string::npos);
    std::string deep(200, '[');
    CHECK(spec_error("{\"a\":" + deep).find("gpu.json") == 0);
  }

  TEST_CASE(
      "every dataset device file parses, the catalog's facets it lacks taken from the catalog") {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(test::data_dir() + "/devices")) {
      if (e.path().extension() != ".json") continue;
      const GpuSpec g = parse_gpu_spec(test::read_file(e.path().string()), e.path().string());
      CAPTURE(g.name);
      const GpuSpec* known = lookup_gpu(g.name);
      REQUIRE(known != nullptr);
      CHECK(g.vendor == known->vendor);
      CHECK(g.vendor == (g.name.rfind("AMD", 0) == 0 ? "AMD" : "NVIDIA"));
      // the entry's other facets, whatever fields the catalog grows; the file's own figures and
      // no catalog id (the spec is the file's, not the entry's)
      CHECK(g.architecture == known->architecture);
      CHECK(g.compute_capability == known->compute_capability);
      CHECK(g.peak_tflops == known->peak_tflops);
      CHECK(g.matrix_clock_mhz == known->matrix_clock_mhz);
      CHECK(g.fp32_accumulate_share == known->fp32_accumulate_share);
      CHECK(g.memory_type == known->memory_type);
      CHECK(g.dram_efficiency == known->dram_efficiency);
      CHECK(g.fp32_issue_slots_per_warp_fma == known->fp32_issue_slots_per_warp_fma);
      CHECK(g.id.empty());
      CHECK(g.aliases == std::vector<std::string>{g.name});
      CHECK(g.source == "NeuSight dataset device file");
      ++n;
    }
    CHECK(n >= 13);
  }

  TEST_CASE("a device file not in the catalog names its vendor in 'Vendor'") {
    const std::string base =
        R"({"Device":"Mystery GPU","Dev_Mem":8,"Mem_Bw":192,"Num_Sm":40,"Core_Per_SM":64,)"
        R"("Freq":1113,"SingleFLOPs":5000,"L2Cache":2)";
    CHECK(spec_error(base + "}").find("field 'Vendor'") != std::string::npos);
    CHECK(parse_gpu_spec(base + R"(,"Vendor":"AMD"})", "gpu.json").vendor == "AMD");
    CHECK(spec_error(base + R"(,"Vendor":"Intel"})").find("field 'Vendor' is \"Intel\"") !=
          std::string::npos);
    // No guessing from the name: an "AMD ..." name not in the catalog needs it too.
    CHECK(spec_error(R"({"Device":"AMD Mystery","Dev_Mem":8,"Mem_Bw":192,"Num_Sm":40,)"
                     R"("Core_Per_SM":64,"Freq":1113,"SingleFLOPs":5000,"L2Cache":2})")
              .find("field 'Vendor'") != std::string::npos);
  }

  TEST_CASE("catalog names resolve case-insensitively") {
    REQUIRE(gpu_catalog().size() >= 1);
    for (const auto& g : gpu_catalog()) {
      CHECK(&find_gpu(g.id) == &g);
      CHECK(g.fp32_gflops > 0);
      CHECK(!g.source.empty());
      if (g.vendor == "NVIDIA") CHECK(g.max_threads_per_sm > 0);
    }
    CHECK(find_gpu("NVIDIA A100 80GB PCIe").id == "a100-80gb-pcie");
    CHECK(find_gpu("h100 SXM5 80gb").id == "h100-sxm");
    CHECK(find_gpu("Tesla T4").id == "t4");
    CHECK_THROWS_AS(find_gpu("no-such-gpu-xyz"), Error);
    CHECK_THROWS_AS(find_gpu(""), Error);
  }
}
