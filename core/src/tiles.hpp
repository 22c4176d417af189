// How a kernel splits into tiles (threadblocks) and waves: GEMM tiles from the
// library kernel's threadblock shape, element-wise blocks from PyTorch's launch rule, rows for
// softmax/ln.
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
  double tile_flops = 0;  // FLOPs of one tile
  double tile_bytes = 0;  // DRAM bytes one tile reads and writes (FP32)
  std::int64_t tiles = 0;
  std::int64_t waves = 0;  // ceil(tiles / SMs)
  double tile_rows = 1;    // tile extent: GEMM rows x cols x K-depth, or elements for vector ops
  double tile_cols = 1;
  double tile_depth = 1;
  std::string label;  // e.g. "128x64", "512 elements", "1 row of 768"
};

std::int64_t waves_for(std::int64_t tiles, int num_sm);

// Elements per block of PyTorch's vectorized element-wise kernel: 512, doubled
// while the grid would exceed 2^20 blocks.
std::int64_t elementwise_block_elements(double elements);

TilePlan plan_gemm(const Kernel& k, const GemmTile& tile, int num_sm);
TilePlan plan_elementwise(const Kernel& k, int num_sm);
TilePlan plan_rows(const Kernel& k, int num_sm);  // softmax, ln: one row per tile

// PyTorch's softmax kernel choice: rows of H <= 1024 go to softmax_warp_forward (a warp
// per row, the row held in registers, read once); longer rows go to cunn_SoftMaxForward
// (a block per row).
inline constexpr std::int64_t kSoftmaxWarpMaxCols = 1024;
// Threads per block of cunn_SoftMaxForward (SoftMax_getBlockSize, float4 ILP): the
// power of two >= min(H / 4, 1024) / 2, at least a warp.
std::int64_t softmax_block_threads(std::int64_t cols);
// DRAM traffic of a softmax relative to its minimal traffic (read + write once), in
// [1, 2]. cunn_SoftMaxForward reads its row three times (max, sum, write pass). The two
// re-reads hit L2 while the rows resident on the whole GPU fit it; they go to DRAM once
// that working set is twice L2, with a log2 ramp in between. Residency assumes 2048
// threads per SM (the device files do not give it).
double softmax_traffic_factor(const Kernel& k, int num_sm, double l2_mb);

}  // namespace tilecast
