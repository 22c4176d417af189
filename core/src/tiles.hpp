// How a kernel splits into tiles (threadblocks) and waves: GEMM tiles from the
// library kernel's threadblock shape, element-wise blocks from PyTorch's launch rule, rows for softmax/ln.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tilecast/kernel.hpp"

namespace tilecast {

// A GEMM threadblock tile: `rows` x `cols` of the (column-major) output, i.e.
// rows along the output features (K) and cols along the input rows (M); `split` > 1 is split-K.
struct GemmTile {
  int rows = 128;
  int cols = 128;
  int split = 1;
};

// "ampere_sgemm_128x64_tn" -> 128x64; nullopt when the name carries no tile.
std::optional<GemmTile> gemm_tile_from_kernel_name(std::string_view kernel_name);

struct TilePlan {
  double tile_flops = 0;   // FLOPs of one tile
  double tile_bytes = 0;   // DRAM bytes one tile reads and writes (FP32)
  std::int64_t tiles = 0;
  std::int64_t waves = 0;  // ceil(tiles / SMs)
  double tile_rows = 1;    // tile extent: GEMM rows x cols x K-depth, or elements for vector ops
  double tile_cols = 1;
  double tile_depth = 1;
  std::string label;       // e.g. "128x64", "512 elements", "1 row of 768"
};

std::int64_t waves_for(std::int64_t tiles, int num_sm);

// Elements per block of PyTorch's vectorized element-wise kernel: 512, doubled
// while the grid would exceed 2^20 blocks.
std::int64_t elementwise_block_elements(double elements);

TilePlan plan_gemm(const Kernel& k, const GemmTile& tile, int num_sm);
TilePlan plan_elementwise(const Kernel& k, int num_sm);
TilePlan plan_rows(const Kernel& k, int num_sm);  // softmax, ln: one row per tile

}  // namespace tilecast
