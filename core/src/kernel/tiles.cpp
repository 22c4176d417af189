#include "kernel/tiles.hpp"

#include <algorithm>
#include <cmath>

namespace tilecast {
namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

// Parses the digits at `pos`; returns -1 when there are none or too many.
int read_int(std::string_view s, std::size_t& pos) {
  int v = 0;
  std::size_t start = pos;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 5)
    v = v * 10 + (s[pos++] - '0');
  return pos == start ? -1 : v;
}

std::int64_t clamp_count(double v) {
  constexpr double kMax = 9.0e18;
  return static_cast<std::int64_t>(std::min(std::max(v, 1.0), kMax));
}

// rocBLAS's Tensile kernels, e.g. "Cijk_Ailk_Bljk_SB_MT128x64x16_..._GSU1_...": the macro
// tile MT<I>x<J>x<depth> (I along the output features, like cuBLAS's first number) and the
// global split-U GSU<n> (split-K). The NeuSight MI100/MI210 GEMM rows confirm it: the launch
// grid is ceil(K / I) x ceil(M / J) x GSU workgroups (times B).
std::optional<GemmTile> tensile_tile(std::string_view name) {
  const std::size_t at = name.find("_MT");
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t q = at + 3;
  GemmTile t;
  t.rows = read_int(name, q);
  if (t.rows <= 0 || q >= name.size() || name[q] != 'x') return std::nullopt;
  ++q;
  t.cols = read_int(name, q);
  if (t.cols <= 0) return std::nullopt;
  const std::size_t g = name.find("_GSU");
  if (g != std::string_view::npos) {
    std::size_t r = g + 4;
    t.split = std::max(read_int(name, r), 1);
  }
  return t;
}

}  // namespace

std::optional<GemmTile> gemm_tile_from_kernel_name(std::string_view name) {
  if (name.rfind("Cijk_", 0) == 0) return tensile_tile(name);
  const std::size_t at = name.find("gemm");
  if (at == std::string_view::npos) return std::nullopt;
  for (std::size_t p = at; p < name.size(); ++p) {
    if (name[p] < '0' || name[p] > '9' || (p > 0 && name[p - 1] >= '0' && name[p - 1] <= '9'))
      continue;
    std::size_t q = p;
    const int a = read_int(name, q);
    if (a <= 0 || q >= name.size() || name[q] != 'x') continue;
    ++q;
    const int b = read_int(name, q);
    if (b <= 0) continue;
    GemmTile t;
    t.rows = a;
    t.cols = b;
    return t;
  }
  return std::nullopt;
}

std::int64_t waves_for(std::int64_t tiles, int num_sm) {
  if (tiles < 1) return 0;
  const std::int64_t sm = std::max(num_sm, 1);
  return (tiles + sm - 1) / sm;
}

std::int64_t elementwise_block_elements(double elements, const LibraryProfile& library) {
  std::int64_t per_block = library.elementwise_block_elements;
  const double max_grid = library.elementwise_max_blocks;
  while (ceil_div(elements, double(per_block)) > max_grid && per_block < (std::int64_t{1} << 40))
    per_block *= 2;
  return per_block;
}

TilePlan plan_gemm(const Kernel& k, const GemmTile& tile, int num_sm) {
  const double b = double(k.dims[0]), m = double(k.dims[1]), n = double(k.dims[2]),
               out = double(k.dims[3]);
  const double split = std::max(tile.split, 1);
  const double depth = std::ceil(n / split);
  TilePlan p;
  p.tile_rows = tile.rows;
  p.tile_cols = tile.cols;
  p.tile_depth = depth;
  p.tile_flops = 2.0 * tile.rows * tile.cols * depth;
  p.tile_bytes = dtype_bytes(k.dtype) *
                 (tile.rows * depth + depth * tile.cols + double(tile.rows) * tile.cols);
  p.tiles = clamp_count(b * ceil_div(out, tile.rows) * ceil_div(m, tile.cols) * split);
  p.waves = waves_for(p.tiles, num_sm);
  p.label = std::to_string(tile.rows) + "x" + std::to_string(tile.cols);
  if (tile.split > 1) p.label += " split-K " + std::to_string(tile.split);
  return p;
}

TilePlan plan_elementwise(const Kernel& k, const LibraryProfile& library, int num_sm) {
  const double elems = kernel_elements(k);
  const std::int64_t per_block = elementwise_block_elements(elems, library);
  const double share = std::min(double(per_block), elems) / elems;
  TilePlan p;
  p.tile_rows = double(per_block);
  p.tile_flops = kernel_flops(k) * share;
  p.tile_bytes = kernel_bytes(k) * share;
  p.tiles = clamp_count(ceil_div(elems, double(per_block)));
  p.waves = waves_for(p.tiles, num_sm);
  p.label = std::to_string(per_block) + " elements";
  return p;
}

TilePlan plan_rows(const Kernel& k, int num_sm) {
  const double rows = double(k.dims[0]);
  TilePlan p;
  p.tile_rows = double(k.dims[1]);
  p.tile_flops = kernel_flops(k) / rows;
  p.tile_bytes = kernel_bytes(k) / rows;
  p.tiles = clamp_count(rows);
  p.waves = waves_for(p.tiles, num_sm);
  p.label = "1 row of " + std::to_string(k.dims[1]);
  return p;
}

std::int64_t softmax_block_threads(std::int64_t cols, const LibraryProfile& library) {
  if (library.softmax_fixed_block_threads > 0) return library.softmax_fixed_block_threads;
  const std::int64_t max_block =
      std::min<std::int64_t>(cols / library.softmax_block_ilp, library.softmax_max_block_threads) /
      2;
  std::int64_t block = 1;
  while (block < max_block) block *= 2;
  return std::max<std::int64_t>(block, library.warp_threads);
}

double resident_threads_per_sm(const GpuSpec& gpu, const LibraryProfile& library) {
  return gpu.max_threads_per_sm > 0 ? double(gpu.max_threads_per_sm)
                                    : double(library.default_threads_per_sm);
}

double resident_blocks_per_sm(const GpuSpec& gpu, const LibraryProfile& library,
                              std::int64_t block_threads) {
  return std::max(1.0, std::floor(resident_threads_per_sm(gpu, library) /
                                  double(std::max<std::int64_t>(block_threads, 1))));
}

namespace {

// Share of a block-per-row kernel's re-reads of its row that miss the caches, in [0, 1]
// (tiles.hpp, softmax_traffic_factor, says how).
double reread_miss(const Kernel& k, const GpuSpec& gpu, const LibraryProfile& library,
                   std::int64_t block_threads) {
  const double resident_rows = resident_blocks_per_sm(gpu, library, block_threads);
  const double sm_bytes = resident_rows * dtype_bytes(k.dtype) * double(k.dims[1]);
  const auto ramp = [](double bytes, double capacity) {
    return std::clamp(std::log2(bytes / capacity), 0.0, 1.0);
  };
  double miss = ramp(double(std::max(gpu.num_sm, 1)) * sm_bytes, gpu.l2_mb * 1048576.0);
  if (gpu.l1_kb_per_sm > 0)
    miss = std::max(miss, ramp(sm_bytes, kL1UsableFraction * gpu.l1_kb_per_sm * 1024.0));
  return miss;
}

}  // namespace

double softmax_traffic_factor(const Kernel& k, const GpuSpec& gpu, const LibraryProfile& library) {
  if (k.dims[1] <= library.softmax_warp_max_cols || !(gpu.l2_mb > 0)) return 1.0;
  return 1.0 + reread_miss(k, gpu, library, softmax_block_threads(k.dims[1], library));
}

double layernorm_traffic_factor(const Kernel& k, const GpuSpec& gpu,
                                const LibraryProfile& library) {
  if (!(gpu.l2_mb > 0)) return 1.0;
  return 1.0 + 0.5 * reread_miss(k, gpu, library, library.layernorm_block_threads);
}

}  // namespace tilecast
