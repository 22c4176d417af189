// Tile, wave and roofline arithmetic against hand-computed cases.
#include "kernel/tiles.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "kernel/library_profile.hpp"
#include "learned/features.hpp"
#include "learned/tile_table.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/roofline.hpp"

using namespace tilecast;

namespace {

GpuSpec a100_40gb() {
  return parse_gpu_spec(R"({"Device":"NVIDIA A100-PCIE-40GB","Dev_Mem":40,"Mem_Bw":1555,
    "Num_Sm":108,"Core_Per_SM":64,"Freq":1410,"SingleFLOPs":19492,"L2Cache":40})",
                        "a100.json");
}

Kernel kernel(Op op, std::int64_t a, std::int64_t b, std::int64_t c = 0, std::int64_t d = 0) {
  const std::int64_t dims[4] = {a, b, c, d};
  return make_kernel(op, dims, is_gemm(op) ? 4 : 2);
}

// The last feature of a row kernel (softmax or ln) over 4096 rows of h elements: where
// each row family puts its own feature.
double last_row_feature(Op op, std::int64_t h) {
  const GpuSpec g = a100_40gb();
  const Kernel k = kernel(op, 4096, h);
  const Features f = kernel_features(g, k, plan_rows(k, g.num_sm), cuda_library_profile());
  REQUIRE(f.count == int(feature_names(op_family(op)).size()));
  return f.v[f.count - 1];
}

}  // namespace

TEST_SUITE("tiles") {
  TEST_CASE("GEMM tiles come from the library kernel's name") {
    auto t = gemm_tile_from_kernel_name("ampere_sgemm_128x64_tn");
    REQUIRE(t);
    CHECK(t->rows == 128);
    CHECK(t->cols == 64);
    CHECK(t->split == 1);
    t = gemm_tile_from_kernel_name("volta_sgemm_32x32_sliced1x4_tn");
    REQUIRE(t);
    CHECK((t->rows == 32 && t->cols == 32));
    t = gemm_tile_from_kernel_name("sgemm_128x128x8_NT_vec");
    REQUIRE(t);
    CHECK((t->rows == 128 && t->cols == 128));
    t = gemm_tile_from_kernel_name("maxwell_sgemm_64x64_nn");
    REQUIRE(t);
    CHECK((t->rows == 64 && t->cols == 64));
    CHECK_FALSE(gemm_tile_from_kernel_name("void at::native::vectorized_elementwise_kernel<4>"));
    CHECK_FALSE(gemm_tile_from_kernel_name("ampere_sgemm_tn"));
  }

  TEST_CASE("waves are tiles over SMs, rounded up") {
    CHECK(waves_for(0, 108) == 0);
    CHECK(waves_for(1, 108) == 1);
    CHECK(waves_for(108, 108) == 1);
    CHECK(waves_for(109, 108) == 2);
    CHECK(waves_for(1000, 80) == 13);
  }

  TEST_CASE("linear: output features by rows, tile FLOPs and bytes") {
    // 1000 rows, 512 in-features, 300 out-features on a 128x64 tile:
    // ceil(300/128)=3 x ceil(1000/64)=16 = 48 tiles, one wave on 108 SMs.
    const TilePlan p = plan_gemm(kernel(Op::linear, 1, 1000, 512, 300), GemmTile{128, 64, 1}, 108);
    CHECK(p.tiles == 48);
    CHECK(p.waves == 1);
    CHECK(p.tile_flops == doctest::Approx(2.0 * 128 * 64 * 512));
    CHECK(p.tile_bytes == doctest::Approx(4.0 * (128 * 512 + 512 * 64 + 128 * 64)));
    CHECK(p.label == "128x64");
  }

  TEST_CASE("bmm: the batch multiplies the tiles; split-K divides the depth") {
    const TilePlan p = plan_gemm(kernel(Op::bmm, 12, 512, 64, 512), GemmTile{128, 128, 1}, 108);
    CHECK(p.tiles == 12 * 4 * 4);
    CHECK(p.waves == 2);
    const TilePlan s = plan_gemm(kernel(Op::linear, 1, 64, 1000, 64), GemmTile{64, 64, 4}, 108);
    CHECK(s.tiles == 4);
    CHECK(s.tile_depth == 250);
    CHECK(s.tile_flops == doctest::Approx(2.0 * 64 * 64 * 250));
    CHECK(s.label == "64x64 split-K 4");
  }

  TEST_CASE("element-wise: 512 elements per block, doubled past 2^20 blocks") {
    CHECK(elementwise_block_elements(1000, cuda_library_profile()) == 512);
    CHECK(elementwise_block_elements(512.0 * 1048576, cuda_library_profile()) == 512);
    CHECK(elementwise_block_elements(512.0 * 1048576 + 1, cuda_library_profile()) == 1024);
    CHECK(elementwise_block_elements(1342177280.0, cuda_library_profile()) ==
          2048);  // measured: grid 655360
    const TilePlan p = plan_elementwise(kernel(Op::add, 1, 1000), cuda_library_profile(), 108);
    CHECK(p.tiles == 2);
    CHECK(p.waves == 1);
    CHECK(p.tile_bytes == doctest::Approx(12.0 * 512));  // two inputs and one output, FP32
    const TilePlan big =
        plan_elementwise(kernel(Op::relu, 1048576, 1024), cuda_library_profile(), 108);
    CHECK(big.tiles == 1048576);
    CHECK(big.waves == 9710);
    CHECK(big.tile_bytes == doctest::Approx(8.0 * 1024));
  }

  TEST_CASE("softmax and layer norm: one row per tile") {
    const TilePlan p = plan_rows(kernel(Op::softmax, 4096, 768), 80);
    CHECK(p.tiles == 4096);
    CHECK(p.waves == 52);
    CHECK(p.tile_flops == doctest::Approx(5.0 * 768));
    CHECK(p.tile_bytes == doctest::Approx(8.0 * 768));
    const TilePlan l = plan_rows(kernel(Op::ln, 1, 1024), 80);
    CHECK(l.tiles == 1);
    CHECK(l.tile_flops == doctest::Approx(8.0 * 1024));
  }

  TEST_CASE("layer norm: its second read of the row is DRAM traffic once the rows miss L1") {
    // 2048 threads / 128 per block = 16 rows per SM; 2/3 of a 192 KiB L1 holds 16 rows of
    // 2048 floats (128 KiB) exactly: no re-read from DRAM. Four times longer rows miss
    // entirely: one read more than a relu's read and write, a factor 1.5.
    GpuSpec g;
    g.num_sm = 108;
    g.l2_mb = 40;
    g.l1_kb_per_sm = 192;
    g.max_threads_per_sm = 2048;
    const LibraryProfile& cuda = cuda_library_profile();
    CHECK(layernorm_traffic_factor(kernel(Op::ln, 65536, 2048), g, cuda) == 1.0);
    CHECK(layernorm_traffic_factor(kernel(Op::ln, 65536, 8192), g, cuda) == 1.5);
    // A smaller L1 (V100: 128 KiB) misses half way at the same row length.
    g.l1_kb_per_sm = 128;
    const double f = layernorm_traffic_factor(kernel(Op::ln, 65536, 2048), g, cuda);
    CHECK(f > 1.0);
    CHECK(f < 1.5);
    // Without an L1 for global loads (Pascal), the rows of all SMs against L2.
    g.l1_kb_per_sm = 0;
    g.l2_mb = 4;
    g.num_sm = 56;
    CHECK(layernorm_traffic_factor(kernel(Op::ln, 65536, 1024), g, cuda) == 1.0);
    CHECK(layernorm_traffic_factor(kernel(Op::ln, 65536, 8192), g, cuda) == 1.5);
    // Twice the threads per block (ROCm's 64 x 4): half the rows resident, less to miss.
    LibraryProfile wide = cuda;
    wide.layernorm_block_threads = 256;
    g.l1_kb_per_sm = 128;
    g.l2_mb = 40;
    CHECK(layernorm_traffic_factor(kernel(Op::ln, 65536, 2048), g, wide) == 1.0);
  }

  TEST_CASE("softmax: PyTorch's block size and the re-read traffic past L2") {
    // Launch blocks in the training CSVs: 128 threads up to H = 1031, 256 from 1033,
    // 512 from 2065 on; capped at 512 (1024 / 2) for longer rows.
    CHECK(softmax_block_threads(1025, cuda_library_profile()) == 128);
    CHECK(softmax_block_threads(1031, cuda_library_profile()) == 128);
    CHECK(softmax_block_threads(1033, cuda_library_profile()) == 256);
    CHECK(softmax_block_threads(2053, cuda_library_profile()) == 256);
    CHECK(softmax_block_threads(2065, cuda_library_profile()) == 512);
    CHECK(softmax_block_threads(4094, cuda_library_profile()) == 512);
    CHECK(softmax_block_threads(16384, cuda_library_profile()) == 512);
    // Warp-per-row kernel (H <= 1024) reads once, whatever the GPU.
    GpuSpec g;
    g.num_sm = 40;
    g.l2_mb = 0.5;
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 65536, 1024), g, cuda_library_profile()) ==
          1.0);
    // 80 SMs x 4 rows (2048 threads / 512) x 4 B x H against 6 MiB of L2: fits at
    // H = 4096, half misses at 1.414x L2, all re-reads miss from 2x L2.
    g.num_sm = 80;
    g.l2_mb = 6;
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 65536, 4096), g, cuda_library_profile()) ==
          1.0);
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 65536, 16384), g, cuda_library_profile()) ==
          2.0);
    const double h = 6.0 * 1048576 * std::sqrt(2.0) / (80 * 4 * 4);
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 8, std::int64_t(h)), g,
                                 cuda_library_profile()) == doctest::Approx(1.5).epsilon(1e-3));
    // Half the resident threads, half the rows: the same H now fits L2.
    g.max_threads_per_sm = 1024;
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 8, std::int64_t(h)), g,
                                 cuda_library_profile()) == 1.0);
  }

  TEST_CASE("softmax: re-reads past one SM's L1 cost like DRAM reads") {
    GpuSpec g;  // an A100: 108 SMs, 40 MB L2, 2048 threads and 192 KB L1 per SM
    g.num_sm = 108;
    g.l2_mb = 40;
    g.max_threads_per_sm = 2048;
    g.l1_kb_per_sm = 192;
    // 4 rows x 4 B x H per SM against 2/3 x 192 KB = 128 KB: fits at H = 8192, half
    // misses at 181 KB (H = 11585), all miss from 256 KB (H = 16384).
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 8192, 8192), g, cuda_library_profile()) ==
          1.0);
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 8192, 11585), g, cuda_library_profile()) ==
          doctest::Approx(1.5).epsilon(1e-3));
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 8192, 16384), g, cuda_library_profile()) ==
          2.0);
    // Without an L1 for global loads (Pascal) only L2 counts: 108 x 256 KB < 40 MB.
    g.l1_kb_per_sm = 0;
    CHECK(softmax_traffic_factor(kernel(Op::softmax, 8192, 16384), g, cuda_library_profile()) ==
          1.0);
  }

  TEST_CASE("GEMM features end with the alignment of M, N and K (log2, capped at 16)") {
    const GpuSpec g = a100_40gb();
    const std::vector<std::string> names = feature_names(OpFamily::gemm);
    REQUIRE(names.size() >= 3);
    CHECK(names[names.size() - 3] == "log2_align_m");
    CHECK(names[names.size() - 1] == "log2_align_k");
    const Kernel k = kernel(Op::linear, 1, 768, 100, 33);
    const Features f =
        kernel_features(g, k, plan_gemm(k, GemmTile{}, g.num_sm), cuda_library_profile());
    REQUIRE(f.count == int(names.size()));
    CHECK(f.v[f.count - 3] == 4.0);  // 768 = 256 x 3
    CHECK(f.v[f.count - 2] == 2.0);  // 100 = 4 x 25
    CHECK(f.v[f.count - 1] == 0.0);  // 33 is odd
  }

  TEST_CASE("softmax features end with the row's alignment (log2, capped at 16)") {
    const std::vector<std::string> names = feature_names(OpFamily::softmax);
    REQUIRE(!names.empty());
    CHECK(names.back() == "log2_align_h");
    const auto last = [](std::int64_t h) { return last_row_feature(Op::softmax, h); };
    CHECK(last(2048) == 4.0);
    CHECK(last(1000) == 3.0);  // 1000 = 8 x 125: rows start on 32-byte sectors
    CHECK(last(1001) == 0.0);
  }

  TEST_CASE("layer-norm features end with whether the row fills whole 512-element passes") {
    const std::vector<std::string> names = feature_names(OpFamily::layernorm);
    REQUIRE(!names.empty());
    CHECK(names.back() == "whole_passes");
    const auto last = [](std::int64_t h) { return last_row_feature(Op::ln, h); };
    CHECK(last(1024) == 1.0);
    CHECK(last(2560) == 1.0);
    CHECK(last(1000) == 0.0);
    CHECK(last(768) == 0.0);  // 1.5 passes
  }

  TEST_CASE("roofline on the A100 40GB, by hand") {
    const GpuSpec g = a100_40gb();
    // 2^31 FLOP at 19492 GFLOP/s = 0.110173 ms; 12 MiB at 1555 GB/s = 0.008092 ms.
    CHECK(roofline_latency_ms(g, kernel(Op::linear, 1, 1024, 1024, 1024)) ==
          doctest::Approx(2147483648.0 / 19492e6));
    CHECK(roofline_latency_ms(g, kernel(Op::add, 1, 1048576)) ==
          doctest::Approx(12.0 * 1048576 / 1555e6));
    CHECK(roofline_gflops(g, Op::add, 1.0, 12.0) == doctest::Approx(1555.0 / 12.0));
    CHECK(roofline_gflops(g, Op::linear, 1e6, 1.0) == doctest::Approx(19492.0));
  }

  TEST_CASE("a tile's roofline time: per-SM share of peak and bandwidth") {
    const GpuSpec g = a100_40gb();
    const Kernel add = kernel(Op::add, 1, 1000);
    const TilePlan p = plan_elementwise(add, cuda_library_profile(), 108);
    // memory against the bandwidth the vendor states is delivered (0.95, the A100 datasheet)
    // over the profile's typical share (kernel/dram_efficiency.cpp)
    const double mem_bw_gbps = 1555 * 0.95 / cuda_library_profile().typical_dram_efficiency;
    CHECK(tile_roofline_ms(g, add, p, cuda_library_profile()) ==
          doctest::Approx(12.0 * 512 / (mem_bw_gbps * 1e6 / 108)));
    const Kernel mm = kernel(Op::bmm, 12, 512, 64, 512);
    const TilePlan q = plan_gemm(mm, GemmTile{128, 128, 1}, 108);
    const double compute = 2.0 * 128 * 128 * 64 / (19492e6 / 108);
    const double traffic = kernel_bytes(mm) / 2 / (mem_bw_gbps * 1e6);
    CHECK(tile_roofline_ms(g, mm, q, cuda_library_profile()) ==
          doctest::Approx(std::max(compute, traffic)));
  }

  TEST_CASE("tile table: exact cell, nearest cell, nearest GPU") {
    const GpuSpec g = a100_40gb();
    const auto key = gpu_table_key(g);
    const Kernel k = kernel(Op::linear, 1, 1024, 1024, 1024);  // cell (0,10,10,10)
    const std::uint32_t cell = shape_cell(k);
    CHECK(cell == ((0u << 15) | (10u << 10) | (10u << 5) | 10u));
    const std::string text = R"({"tiles":[[128,64,1],[32,32,1]],"gpus":[{"name":"near","key":[)" +
                             std::to_string(key[0]) + "," + std::to_string(key[1]) + "," +
                             std::to_string(key[2]) + "," + std::to_string(key[3]) +
                             R"(],"linear":[)" + std::to_string(cell * 256 + 1) + "," +
                             std::to_string(((0u << 15) | (4u << 10) | (4u << 5) | 4u) * 256 + 0) +
                             R"(]},{"name":"far","key":[1,1,1,1],"linear":[0]}]})";
    const TileTable t = parse_tile_table(text, "table.json");
    const LibraryProfile& cuda = cuda_library_profile();
    CHECK(select_gemm_tile(t, g, cuda, k).rows == 32);
    CHECK(select_gemm_tile(t, g, cuda, kernel(Op::linear, 1, 16, 16, 20)).rows == 128);
    CHECK(select_gemm_tile(t, g, cuda, kernel(Op::bmm, 4, 16, 16, 16)).rows == 128);  // default
    CHECK_THROWS_AS(parse_tile_table(R"({"tiles":[[0,1,1]],"gpus":[]})", "t.json"), Error);
    CHECK_THROWS_AS(parse_tile_table("not json", "t.json"), Error);
  }

  TEST_CASE("tile table: a measured GPU of the target's kernel generation comes first") {
    const GpuSpec g = a100_40gb();  // the catalog's architecture: Ampere
    REQUIRE(g.architecture == "Ampere");
    REQUIRE(cuda_library_profile().gemm_kernel_generation("Ampere") == "ampere");
    REQUIRE(cuda_library_profile().gemm_kernel_generation("Turing") == "volta");
    const auto key = gpu_table_key(g);
    std::string near_key;
    for (double v : key) near_key += (near_key.empty() ? "" : ",") + std::to_string(v);
    auto table = [&](const char* near_generation, const char* far_generation) {
      return parse_tile_table(R"({"tiles":[[128,64,1],[32,32,1]],"gpus":[{"name":"near","key":[)" +
                                  near_key + R"(],"kernel_generation":")" + near_generation +
                                  R"(","linear":[1]},{"name":"far","key":[1,1,1,1],)" +
                                  R"("kernel_generation":")" + far_generation +
                                  R"(","linear":[0]}]})",
                              "table.json");
    };
    const Kernel k = kernel(Op::linear, 1, 1024, 1024, 1024);
    const LibraryProfile& cuda = cuda_library_profile();
    CHECK(select_gemm_tile(table("volta", "ampere"), g, cuda, k).rows == 128);  // far, same gen.
    CHECK(select_gemm_tile(table("ampere", "volta"), g, cuda, k).rows == 32);   // near, same gen.
    CHECK(select_gemm_tile(table("volta", "maxwell"), g, cuda, k).rows == 32);  // none: nearest
    for (const auto& [arch, gen] : cuda.gemm_kernel_generation_by_architecture) {
      bool in_catalog = false;  // a key that no catalog GPU names (a typo) would never match
      for (const GpuSpec& c : gpu_catalog()) in_catalog = in_catalog || c.architecture == arch;
      CHECK_MESSAGE(in_catalog, arch);
    }
    GpuSpec custom = g;
    custom.architecture.clear();  // no architecture: nearest by hardware
    CHECK(select_gemm_tile(table("volta", "ampere"), custom, cuda, k).rows == 32);
    CHECK_THROWS_AS(parse_tile_table(R"({"tiles":[],"gpus":[{"name":"x","key":[1,1,1,1],)"
                                     R"("kernel_generation":7}]})",
                                     "t.json"),
                    Error);
  }

  TEST_CASE("tile table format 2: entries as differences, the same table") {
    const std::string abs = R"({"format":"tilecast-tile-table-1","tiles":[[128,64,1],[32,32,1]],
      "gpus":[{"name":"g","key":[1,2,3,4],"linear":[1025,2048,70401]}]})";
    const std::string delta = R"({"format":"tilecast-tile-table-2","tiles":[[128,64,1],[32,32,1]],
      "gpus":[{"name":"g","key":[1,2,3,4],"linear":[1025,1023,68353]}]})";
    const TileTable a = parse_tile_table(abs, "a.json"), d = parse_tile_table(delta, "d.json");
    REQUIRE(d.gpus.size() == 1);
    CHECK(d.gpus[0].entries[0] == a.gpus[0].entries[0]);
    // held as cell << 12 | tile whatever the file's packing: cells 4, 8 and 275
    CHECK(d.gpus[0].entries[0] ==
          std::vector<std::uint32_t>{4u << 12 | 1, 8u << 12, 275u << 12 | 1});
    // a difference that lands on a tile the table lacks names the entry
    CHECK_THROWS_WITH_AS(parse_tile_table(R"({"format":"tilecast-tile-table-2","tiles":[[32,32,1]],
          "gpus":[{"name":"g","key":[1,2,3,4],"linear":[256,1]}]})",
                                          "d.json"),
                         doctest::Contains("(as a difference)"), Error);
    CHECK_THROWS_WITH_AS(
        parse_tile_table(R"({"format":"tilecast-tile-table-9","tiles":[],"gpus":[]})", "x.json"),
        doctest::Contains("tilecast-tile-table-1, -2 or -3"), Error);
  }

  TEST_CASE("tile table format 3: cell * tile_radix + tile, so more than 256 tiles") {
    const std::string v2 = R"({"format":"tilecast-tile-table-2","tiles":[[128,64,1],[32,32,1]],
      "gpus":[{"name":"g","key":[1,2,3,4],"linear":[1025,1023,68353]}]})";
    const std::string v3 = R"({"format":"tilecast-tile-table-3","tile_radix":4096,
      "tiles":[[128,64,1],[32,32,1]],
      "gpus":[{"name":"g","key":[1,2,3,4],"linear":[16385,16383,1093633]}]})";
    CHECK(parse_tile_table(v3, "3.json").gpus[0].entries[0] ==
          parse_tile_table(v2, "2.json").gpus[0].entries[0]);
    // 300 tiles, the last one chosen: beyond what one byte (formats 1 and 2) can index
    std::string tiles;
    for (int i = 0; i < 300; ++i)
      tiles += (i ? "," : "") + std::string("[") + std::to_string(8 + i) + ",16,1]";
    const GpuSpec g = a100_40gb();
    std::string key;
    for (double v : gpu_table_key(g)) key += (key.empty() ? "" : ",") + std::to_string(v);
    const Kernel k = kernel(Op::linear, 1, 1024, 1024, 1024);
    const TileTable big =
        parse_tile_table(R"({"format":"tilecast-tile-table-3","tile_radix":512,"tiles":[)" + tiles +
                             R"(],"gpus":[{"name":"g","key":[)" + key + R"(],"linear":[)" +
                             std::to_string(std::uint64_t(shape_cell(k)) * 512 + 299) + "]}]}",
                         "big.json");
    CHECK(select_gemm_tile(big, g, cuda_library_profile(), k).rows == 8 + 299);
    // a tile index past the table's tiles names the entry
    CHECK_THROWS_WITH_AS(parse_tile_table(R"({"format":"tilecast-tile-table-3","tile_radix":4096,
          "tiles":[[32,32,1]],"gpus":[{"name":"g","key":[1,2,3,4],"linear":[4097,1]}]})",
                                          "d.json"),
                         doctest::Contains("cell*4096+tile (as a difference)"), Error);
    // the radix is stated, a power of two up to 4096
    for (const char* radix : {"", R"("tile_radix":300,)", R"("tile_radix":8192,)"})
      CHECK_THROWS_WITH_AS(parse_tile_table(std::string(R"({"format":"tilecast-tile-table-3",)") +
                                                radix + R"("tiles":[],"gpus":[]})",
                                            "r.json"),
                           doctest::Contains("tile_radix must be a power of two up to 4096"),
                           Error);
  }
}
