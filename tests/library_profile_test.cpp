// Kernel-library profiles: launch rules as data, chosen by the GPU's vendor, and the tile and
// feature code reading them instead of constants.
#include "kernel/library_profile.hpp"

#include <doctest/doctest.h>

#include <string>

#include "kernel/family.hpp"
#include "kernel/tiles.hpp"
#include "learned/features.hpp"
#include "support/helpers.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

const char* kProfile = R"({"id": "x", "vendor": "NVIDIA", "warp_threads": 32,
  "elementwise_block_elements": 512, "elementwise_max_blocks": 1048576,
  "softmax_warp_max_cols": 1024, "softmax_block_ilp": 4, "softmax_max_block_threads": 1024,
  "layernorm_elements_per_pass": 512, "layernorm_block_threads": 128,
  "layernorm_vector_elements": 4, "default_threads_per_sm": 2048})";

std::string profile_error(const std::string& field, const std::string& value) {
  std::string s = kProfile;
  const auto pos = s.find("\"" + field + "\": ");
  REQUIRE(pos != std::string::npos);
  const auto start = pos + field.size() + 4;
  s = s.substr(0, start) + value + s.substr(s.find_first_of(",}", start));
  return test::error_of([&] { (void)parse_library_profile(s, "lib.json"); });
}

}  // namespace

TEST_SUITE("library profile") {
  TEST_CASE("CUDA and ROCm profiles are embedded and chosen by the GPU's vendor") {
    const LibraryProfile& cuda = library_profile_for(find_gpu("a100-80gb-pcie"));
    CHECK(cuda.id == "cuda-pytorch");
    CHECK(cuda.warp_threads == 32);
    CHECK(cuda.elementwise_block_elements == 512);
    CHECK(cuda.elementwise_max_blocks == 1048576);
    CHECK(cuda.softmax_warp_max_cols == 1024);
    CHECK(cuda.layernorm_elements_per_pass == 512);
    CHECK(cuda.layernorm_block_threads == 128);  // 32 x 4, the NeuSight ln launches
    CHECK(cuda.layernorm_vector_elements == 4);  // float4: every NeuSight ln row's H
    CHECK(cuda.default_threads_per_sm == 2048);
    const LibraryProfile& rocm = library_profile_for(find_gpu("mi210"));
    CHECK(rocm.id == "rocm-pytorch");
    CHECK(rocm.warp_threads == 64);
    CHECK(rocm.layernorm_block_threads == 256);  // 64 x 4, the MI100/MI210 ln launches
    CHECK(&cuda_library_profile() == &cuda);
    CHECK_THROWS_WITH_AS(library_profile_for("Intel"), doctest::Contains("known vendors"), Error);
  }

  TEST_CASE("a profile's fields are validated, naming the file and field") {
    CHECK(profile_error("warp_threads", "32") == "");
    CHECK(profile_error("warp_threads", "0").find("lib.json: field 'warp_threads'") == 0);
    CHECK(profile_error("softmax_block_ilp", "\"4\"").find("softmax_block_ilp") !=
          std::string::npos);
    CHECK(profile_error("vendor", "\"\"").find("vendor") != std::string::npos);
    CHECK(profile_error("layernorm_block_threads", "0")
              .find("lib.json: field 'layernorm_block_threads'") == 0);
    CHECK(profile_error("layernorm_vector_elements", "0")
              .find("lib.json: field 'layernorm_vector_elements'") == 0);
    CHECK(profile_error("layernorm_vector_elements", "4.5")
              .find("lib.json: field 'layernorm_vector_elements'") == 0);

    const std::string base = std::string(kProfile).substr(0, std::string(kProfile).size() - 1);
    const LibraryProfile gens = parse_library_profile(
        base + R"(, "gemm_kernel_generation_by_architecture": {"Volta": "volta"}})", "lib.json");
    CHECK(gens.gemm_kernel_generation("Volta") == "volta");
    CHECK(gens.gemm_kernel_generation("Pascal").empty());
    CHECK(parse_library_profile(base + R"(, "softmax_fixed_block_threads": 256})", "lib.json")
              .softmax_fixed_block_threads == 256);
    for (const char* bad : {"0", "2048"})  // at most softmax_max_block_threads (1024)
      CHECK_THROWS_WITH_AS(
          parse_library_profile(base + R"(, "softmax_fixed_block_threads": )" + bad + "}",
                                "lib.json"),
          doctest::Contains("lib.json: field 'softmax_fixed_block_threads'"), Error);
    const LibraryProfile assumed = parse_library_profile(
        base + R"(, "gemm_kernel_generation_by_architecture": {"Volta": "volta", "Ada": "ampere"},)"
               R"( "gemm_kernel_generation_assumed_for": ["Ada"]})",
        "lib.json");
    CHECK(assumed.gemm_kernel_generation_assumed("Ada"));
    CHECK_FALSE(assumed.gemm_kernel_generation_assumed("Volta"));
    for (const char* bad : {R"(["Pascal"])", R"("Ada")", R"([7])"})  // Pascal has no generation
      CHECK_THROWS_WITH_AS(
          parse_library_profile(
              base + R"(, "gemm_kernel_generation_by_architecture": {"Ada": "ampere"},)" +
                  R"( "gemm_kernel_generation_assumed_for": )" + bad + "}",
              "lib.json"),
          doctest::Contains("lib.json: "), Error);
    for (const char* bad : {R"({"Volta": ""})", R"({"Volta": 7})", R"(["volta"])"})
      CHECK_THROWS_WITH_AS(
          parse_library_profile(
              base + R"(, "gemm_kernel_generation_by_architecture": )" + bad + "}", "lib.json"),
          doctest::Contains("lib.json"), Error);
    // the misaligned-GEMM rule: GEMM ops and data types by name, alignment classes ascending
    const std::string good =
        R"({"ops": ["linear"], "types": ["bf16"], "aligned_bytes": 16, "classes": )"
        R"([{"max_align_bytes": 2, "compute_multiple": 10, "memory_multiple": 5}]})";
    CHECK(parse_library_profile(base + R"(, "misaligned_tensor_gemm": )" + good + "}", "lib.json")
              .misaligned_gemm_classes.size() == 1);
    const std::string with_rows =
        R"({"ops": ["linear", "bmm"], "min_rows": {"bmm": 8}, "types": ["bf16"], )"
        R"("aligned_bytes": 16, "classes": )"
        R"([{"max_align_bytes": 2, "compute_multiple": 10, "memory_multiple": 5}]})";
    const LibraryProfile rows = parse_library_profile(
        base + R"(, "misaligned_tensor_gemm": )" + with_rows + "}", "lib.json");
    REQUIRE(rows.misaligned_gemm_min_rows.size() == 1);
    CHECK(rows.misaligned_gemm_min_rows[0] == std::pair<Op, std::int64_t>(Op::bmm, 8));
    for (const char* bad :
         {R"({"ops": ["add"], "types": ["bf16"], "aligned_bytes": 16, "classes": []})",
          R"({"ops": [], "types": ["bf16"], "aligned_bytes": 16, "classes": []})",
          R"({"ops": ["linear"], "types": [7], "aligned_bytes": 16, "classes": []})",
          R"({"ops": ["linear"], "types": ["bf16"], "aligned_bytes": 16, "classes": []})",
          R"({"ops": ["linear"], "types": ["bf16"], "aligned_bytes": 16, "classes": )"
          R"([{"max_align_bytes": 16, "compute_multiple": 10, "memory_multiple": 5}]})",
          // min_rows: an object of the rule's own ops, each at least one row
          R"({"ops": ["linear"], "min_rows": {"bmm": 8}, "types": ["bf16"], "aligned_bytes": 16, )"
          R"("classes": [{"max_align_bytes": 2, "compute_multiple": 10, "memory_multiple": 5}]})",
          R"({"ops": ["bmm"], "min_rows": {"bmm": 0}, "types": ["bf16"], "aligned_bytes": 16, )"
          R"("classes": [{"max_align_bytes": 2, "compute_multiple": 10, "memory_multiple": 5}]})",
          R"({"ops": ["bmm"], "min_rows": [8], "types": ["bf16"], "aligned_bytes": 16, )"
          R"("classes": [{"max_align_bytes": 2, "compute_multiple": 10, "memory_multiple": 5}]})"})
      CHECK_THROWS_WITH_AS(
          parse_library_profile(base + R"(, "misaligned_tensor_gemm": )" + bad + "}", "lib.json"),
          doctest::Contains("lib.json: misaligned_tensor_gemm"), Error);
  }

  TEST_CASE("tiles and features follow the profile's launch rules") {
    LibraryProfile lib = cuda_library_profile();
    CHECK(elementwise_block_elements(1000, lib) == 512);
    lib.elementwise_block_elements = 256;
    lib.elementwise_max_blocks = 4;
    CHECK(elementwise_block_elements(1000, lib) == 256);
    CHECK(elementwise_block_elements(2000, lib) == 512);  // 8 blocks of 256 > 4
    // The softmax block is at least a warp: a wavefront of 64 on ROCm.
    LibraryProfile wide = cuda_library_profile();
    wide.softmax_max_block_threads = 64;
    CHECK(softmax_block_threads(4096, wide) == 32);
    wide.warp_threads = 64;
    CHECK(softmax_block_threads(4096, wide) == 64);
    // Layer norm's whole passes count the profile's elements per pass.
    const GpuSpec& gpu = find_gpu("a100-80gb-pcie");
    const Kernel ln = parse_kernel("ln", "4096,768");
    const TilePlan plan = plan_rows(ln, gpu.num_sm);
    const auto last = [&](const LibraryProfile& p) {
      const Features f = kernel_features(gpu, ln, plan, p);
      return f.v[std::size_t(f.count - 1)];
    };
    CHECK(last(cuda_library_profile()) == 0.0);  // 768 = 1.5 passes of 512
    LibraryProfile half = cuda_library_profile();
    half.layernorm_elements_per_pass = 256;
    CHECK(last(half) == 1.0);
  }

  TEST_CASE("ROCm launches 1024-thread softmax blocks at every row length; CUDA follows its rule") {
    // What the MI100/MI210 rows launch above H = 1024 (rocm-pytorch.json's source).
    for (std::int64_t h : {1025, 2048, 4081, 16384})
      CHECK(softmax_block_threads(h, library_profile_for("AMD")) == 1024);
    CHECK(softmax_block_threads(1025, cuda_library_profile()) == 128);
    CHECK(softmax_block_threads(2048, cuda_library_profile()) == 256);
    CHECK(softmax_block_threads(4096, cuda_library_profile()) == 512);
    CHECK(cuda_library_profile().softmax_fixed_block_threads == 0);
    // Fewer rows resident per compute unit: the re-read traffic can only shrink.
    const Kernel k = parse_kernel("softmax", "65536,2048");
    LibraryProfile rule = library_profile_for("AMD");
    rule.softmax_fixed_block_threads = 0;
    CHECK(softmax_traffic_factor(k, find_gpu("mi210"), library_profile_for("AMD")) <=
          softmax_traffic_factor(k, find_gpu("mi210"), rule));
  }
}
