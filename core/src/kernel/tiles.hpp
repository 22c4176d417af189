// How a kernel splits into tiles (threadblocks) and waves: GEMM tiles from the
// library kernel's threadblock shape, element-wise blocks from the library's launch rule, rows
// for softmax/ln. The launch rules come from the vendor's kernel-library profile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kernel/library_profile.hpp"
#include "tilecast/gpu_spec.hpp"
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
  double tile_bytes = 0;  // DRAM bytes one tile reads and writes
  std::int64_t tiles = 0;
  std::int64_t waves = 0;  // ceil(tiles / SMs)
  double tile_rows = 1;    // tile extent: GEMM rows x cols x K-depth, or elements for vector ops
  double tile_cols = 1;
  double tile_depth = 1;
  std::string label;  // e.g. "128x64", "512 elements", "1 row of 768"
};

std::int64_t waves_for(std::int64_t tiles, int num_sm);

// Elements per block of PyTorch's vectorized element-wise kernel: the library's block
// elements (CUDA: 512), doubled while the grid would exceed its max blocks (CUDA: 2^20).
std::int64_t elementwise_block_elements(double elements, const LibraryProfile& library);

TilePlan plan_gemm(const Kernel& k, const GemmTile& tile, int num_sm);
TilePlan plan_elementwise(const Kernel& k, const LibraryProfile& library, int num_sm);
TilePlan plan_rows(const Kernel& k, int num_sm);  // softmax, ln: one row per tile

// PyTorch's softmax kernel choice: rows of H <= library.softmax_warp_max_cols (CUDA: 1024)
// go to softmax_warp_forward (a warp per row, the row held in registers, read once); longer
// rows go to cunn_SoftMaxForward (a block per row).
// Threads per block of cunn_SoftMaxForward (SoftMax_getBlockSize, float4 ILP): the
// power of two >= min(H / ilp, max block threads) / 2, at least a warp; or the library's
// fixed block size where it states one (ROCm: 1024).
std::int64_t softmax_block_threads(std::int64_t cols, const LibraryProfile& library);
// The threads an SM holds at once (the GPU's max_threads_per_sm, the library's default when the
// catalog has none), and how many blocks of `block_threads` that is (at least one).
double resident_threads_per_sm(const GpuSpec& gpu, const LibraryProfile& library);
double resident_blocks_per_sm(const GpuSpec& gpu, const LibraryProfile& library,
                              std::int64_t block_threads);

// Traffic of a softmax, as DRAM-equivalent bytes relative to its minimal traffic (read +
// write once), in [1, 2]. cunn_SoftMaxForward reads its row three times (max, sum, write
// pass), and the re-reads are cheap only while the rows resident at once stay cached:
// - all SMs' rows against L2: no miss up to L2, all re-reads from DRAM from 2x L2;
// - one SM's rows against its L1 (where global loads use it): no miss up to
//   kL1UsableFraction of L1, all missing from twice that. An L1 miss costs as much as a
//   DRAM read: the data says so on the A100, V100 and T4.
// Both ramps are log2 over one octave; the larger miss counts. Residency is
// max_threads_per_sm / block threads rows per SM (the library's default when unknown).
double softmax_traffic_factor(const Kernel& k, const GpuSpec& gpu, const LibraryProfile& library);
// Traffic of a layer norm relative to one read and one write per element, in [1, 1.5]:
// vectorized_layer_norm_kernel reads its row twice (the statistics, then the normalisation
// with the write), the second read cached as for softmax's re-reads above, with the
// library's layernorm_block_threads per row.
double layernorm_traffic_factor(const Kernel& k, const GpuSpec& gpu, const LibraryProfile& library);
// Share of the L1 that a block kernel's resident rows can use before re-reads start to
// miss; chosen on the training GPUs' test rows (A100 40GB, V100, T4).
inline constexpr double kL1UsableFraction = 2.0 / 3.0;

}  // namespace tilecast
