// The GEMM tile-selection table: for each measured GPU and GEMM op, the tile the
// library chose per log2-binned shape. An unseen GPU or shape takes the nearest entry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/library_profile.hpp"
#include "kernel/tiles.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

struct TileTable {
  struct Gpu {
    std::string name;
    std::array<double, 4> key{};    // gpu_table_key
    std::string kernel_generation;  // the library's GEMM kernel generation there; may be empty
    std::array<std::vector<std::uint32_t>, 2> entries;  // [linear, bmm]: sorted cell << 12 | tile
    // Per op, filled at parse time: every cell of the measured range (lo..hi per dim)
    // holds the tile of its nearest entry (fewest log2 steps, found breadth-first).
    struct Dense {
      std::array<int, 4> lo{}, hi{};
      std::vector<std::uint16_t> tile;
    };
    std::array<Dense, 2> dense;
  };
  std::vector<Gpu> gpus;
  std::vector<GemmTile> tiles;
};

// A table holds at most this many distinct tiles (an entry's low 12 bits; the file format
// tilecast-tile-table-3 writes entries as cell * 4096 + tile).
inline constexpr int kTileIndexBits = 12;
inline constexpr std::size_t kMaxTiles = std::size_t{1} << kTileIndexBits;

// log2 of SMs, FP32 GFLOP/s, bandwidth and L2: where GPUs are compared.
std::array<double, 4> gpu_table_key(const GpuSpec& gpu);
// log2(B), log2(M), log2(N), log2(K) rounded and clamped to 0..31, packed in 20 bits.
std::uint32_t shape_cell(const Kernel& k);

TileTable parse_tile_table(std::string_view json_text, std::string_view origin);
// The embedded tables: embedded_tile_table(id) (forecast/model_registry.hpp).

// The tile of the nearest GPU's nearest shape. The GPU: among the measured GPUs whose GEMM
// kernel generation is the target's (the library profile's, by architecture), else among all,
// the nearest by gpu_table_key. The shape is clamped into that GPU's measured range, then the
// nearest measured cell decides. 128x128 when the table is empty.
GemmTile select_gemm_tile(const TileTable& table, const GpuSpec& gpu, const LibraryProfile& library,
                          const Kernel& k);
// The measured GPU whose tiles select_gemm_tile takes for `op` (linear or bmm); null when the
// table has none. Forecasts name it for GPUs of an unmeasured architecture.
const TileTable::Gpu* gemm_tile_source(const TileTable& table, const GpuSpec& gpu,
                                       const LibraryProfile& library, Op op);

}  // namespace tilecast
