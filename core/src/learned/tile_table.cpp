#include "learned/tile_table.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <nlohmann/json.hpp>

#include "tilecast/error.hpp"

namespace tilecast {
namespace {

using nlohmann::json;

constexpr int kCellBits = 5;
constexpr std::uint32_t kCellMask = (1u << kCellBits) - 1;

int cell_dim(std::uint32_t cell, int i) { return int((cell >> (kCellBits * (3 - i))) & kCellMask); }

std::size_t dense_index(const TileTable::Gpu::Dense& d, const int* c) {
  std::size_t idx = 0;
  for (int i = 0; i < 4; ++i)
    idx = idx * std::size_t(d.hi[i] - d.lo[i] + 1) + std::size_t(c[i] - d.lo[i]);
  return idx;
}

// Multi-source breadth-first fill over the measured box: entries seed their cells
// in sorted order, neighbours (one log2 step in one dim) are visited in a fixed order.
// Works on flat indices (a neighbour is one stride away), since the tables fill at start-up,
// in the WebAssembly build's slowest code tier too.
void fill_dense(const std::vector<std::uint32_t>& entries, TileTable::Gpu::Dense& d) {
  if (entries.empty()) return;
  for (int i = 0; i < 4; ++i) {
    d.lo[i] = int(kCellMask);
    d.hi[i] = 0;
  }
  for (std::uint32_t v : entries)
    for (int i = 0; i < 4; ++i) {
      d.lo[i] = std::min(d.lo[i], cell_dim(v >> kTileIndexBits, i));
      d.hi[i] = std::max(d.hi[i], cell_dim(v >> kTileIndexBits, i));
    }
  std::size_t extent[4], stride[4];
  for (int i = 0; i < 4; ++i) extent[i] = std::size_t(d.hi[i] - d.lo[i] + 1);
  stride[3] = 1;
  for (int i = 2; i >= 0; --i) stride[i] = stride[i + 1] * extent[i + 1];
  const std::size_t size = stride[0] * extent[0];
  constexpr std::uint16_t kEmpty = 0xffff;  // above any tile index (kMaxTiles)
  d.tile.assign(size, kEmpty);
  std::uint16_t* const tile = d.tile.data();
  std::vector<std::uint32_t> queue;
  queue.reserve(size);
  for (std::uint32_t v : entries) {
    std::size_t idx = 0;
    for (int i = 0; i < 4; ++i)
      idx += std::size_t(cell_dim(v >> kTileIndexBits, i) - d.lo[i]) * stride[i];
    if (tile[idx] != kEmpty) continue;
    tile[idx] = std::uint16_t(v & (kMaxTiles - 1));
    queue.push_back(std::uint32_t(idx));
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::size_t idx = queue[head];
    const std::uint16_t t = tile[idx];
    std::size_t rest = idx;
    for (int i = 0; i < 4; ++i) {
      const std::size_t c = rest / stride[i];
      rest -= c * stride[i];
      if (c > 0 && tile[idx - stride[i]] == kEmpty) {
        tile[idx - stride[i]] = t;
        queue.push_back(std::uint32_t(idx - stride[i]));
      }
      if (c + 1 < extent[i] && tile[idx + stride[i]] == kEmpty) {
        tile[idx + stride[i]] = t;
        queue.push_back(std::uint32_t(idx + stride[i]));
      }
    }
  }
}

}  // namespace

std::array<double, 4> gpu_table_key(const GpuSpec& gpu) {
  return {std::log2(std::max(gpu.num_sm, 1)), std::log2(std::max(gpu.fp32_matrix_gflops, 1.0)),
          std::log2(std::max(gpu.mem_bw_gbps, 1.0)), std::log2(std::max(gpu.l2_mb, 0.01))};
}

std::uint32_t shape_cell(const Kernel& k) {
  std::uint32_t cell = 0;
  for (int i = 0; i < 4; ++i) {
    const double q = std::round(std::log2(double(std::max<std::int64_t>(k.dims[i], 1))));
    cell = (cell << kCellBits) | std::uint32_t(std::clamp(q, 0.0, double(kCellMask)));
  }
  return cell;
}

TileTable parse_tile_table(std::string_view text, std::string_view origin) {
  const std::string where(origin);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tiles") || !j.contains("gpus") ||
      !j.at("tiles").is_array() || !j.at("gpus").is_array())
    throw Error(where + ": not a tile table (expected 'tiles' and 'gpus' arrays)");
  // Format 1 writes each entry (cell * 256 + tile) as is, format 2 as the difference from the
  // one before, format 3 as differences of cell * tile_radix + tile (a power of two the file
  // states, up to kMaxTiles: tables of more than 256 tiles).
  const std::string format = j.contains("format") && j.at("format").is_string()
                                 ? j.at("format").get<std::string>()
                                 : "tilecast-tile-table-1";
  if (format != "tilecast-tile-table-1" && format != "tilecast-tile-table-2" &&
      format != "tilecast-tile-table-3")
    throw Error(where + ": format '" + format +
                "' is not a tile table this tilecast reads (tilecast-tile-table-1, -2 or -3)");
  const bool deltas = format != "tilecast-tile-table-1";
  int tile_bits = 8;
  if (format == "tilecast-tile-table-3") {
    const json* radix = j.contains("tile_radix") ? &j.at("tile_radix") : nullptr;
    const std::uint64_t r =
        radix && radix->is_number_unsigned() ? radix->get<std::uint64_t>() : std::uint64_t{0};
    if (!std::has_single_bit(r) || r > kMaxTiles)
      throw Error(where + ": tile_radix must be a power of two up to " + std::to_string(kMaxTiles) +
                  " (format tilecast-tile-table-3)");
    tile_bits = std::countr_zero(r);
  }
  const std::uint64_t tile_mask = (std::uint64_t{1} << tile_bits) - 1;
  const std::string packing = "cell*" + std::to_string(tile_mask + 1) + "+tile";
  TileTable t;
  for (const auto& e : j.at("tiles")) {
    if (!e.is_array() || e.size() != 3 || !e[0].is_number_integer() || !e[1].is_number_integer() ||
        !e[2].is_number_integer())
      throw Error(where + ": tiles entry " + e.dump() + " must be [rows, cols, split]");
    GemmTile g{e[0].get<int>(), e[1].get<int>(), e[2].get<int>()};
    if (g.rows < 1 || g.rows > 4096 || g.cols < 1 || g.cols > 4096 || g.split < 1 || g.split > 4096)
      throw Error(where + ": tiles entry " + e.dump() + " is out of range 1..4096");
    t.tiles.push_back(g);
  }
  if (t.tiles.size() > kMaxTiles)
    throw Error(where + ": " + std::to_string(t.tiles.size()) + " tiles; a table holds at most " +
                std::to_string(kMaxTiles));
  for (const auto& g : j.at("gpus")) {
    TileTable::Gpu gpu;
    if (!g.is_object() || !g.contains("name") || !g.at("name").is_string() || !g.contains("key"))
      throw Error(where + ": each gpus entry needs 'name' and 'key'");
    gpu.name = g.at("name").get<std::string>();
    const json& key = g.at("key");
    if (!key.is_array() || key.size() != 4)
      throw Error(where + ": gpus '" + gpu.name + "' key must hold 4 numbers");
    for (int i = 0; i < 4; ++i) {
      if (!key[i].is_number()) throw Error(where + ": gpus '" + gpu.name + "' key not numeric");
      gpu.key[i] = key[i].get<double>();
    }
    if (g.contains("kernel_generation")) {
      if (!g.at("kernel_generation").is_string())
        throw Error(where + ": gpus '" + gpu.name + "' kernel_generation must be a string");
      gpu.kernel_generation = g.at("kernel_generation").get<std::string>();
    }
    const char* ops[2] = {"linear", "bmm"};
    for (int o = 0; o < 2; ++o) {
      if (!g.contains(ops[o])) continue;
      std::uint64_t previous = 0;
      for (const auto& e : g.at(ops[o])) {
        const std::uint64_t v = e.is_number_unsigned() ? (deltas ? previous + e.get<std::uint64_t>()
                                                                 : e.get<std::uint64_t>())
                                                       : std::uint64_t{1} << 40;
        if ((v & tile_mask) >= t.tiles.size() || v >= (std::uint64_t{1} << (20 + tile_bits)))
          throw Error(where + ": gpus '" + gpu.name + "' " + ops[o] + " entry " + e.dump() +
                      " is not a packed " + packing + (deltas ? " (as a difference)" : ""));
        gpu.entries[o].push_back(
            std::uint32_t((v >> tile_bits) << kTileIndexBits | (v & tile_mask)));
        previous = v;
      }
      std::sort(gpu.entries[o].begin(), gpu.entries[o].end());
      fill_dense(gpu.entries[o], gpu.dense[o]);
    }
    t.gpus.push_back(std::move(gpu));
  }
  return t;
}

const TileTable::Gpu* gemm_tile_source(const TileTable& table, const GpuSpec& gpu,
                                       const LibraryProfile& library, Op op) {
  const int o = op == Op::bmm ? 1 : 0;
  const auto key = gpu_table_key(gpu);
  const std::string_view generation = library.gemm_kernel_generation(gpu.architecture);
  bool same_generation = false;  // whether a measured GPU of the target's generation exists
  if (!generation.empty())
    for (const auto& g : table.gpus)
      if (!g.entries[o].empty() && g.kernel_generation == generation) same_generation = true;
  const TileTable::Gpu* best = nullptr;
  double best_d = 0;
  for (const auto& g : table.gpus) {
    if (g.entries[o].empty()) continue;
    if (same_generation && g.kernel_generation != generation) continue;
    double d = 0;
    for (int i = 0; i < 4; ++i) d += (g.key[i] - key[i]) * (g.key[i] - key[i]);
    if (!best || d < best_d) {
      best = &g;
      best_d = d;
    }
  }
  return best;
}

GemmTile select_gemm_tile(const TileTable& table, const GpuSpec& gpu, const LibraryProfile& library,
                          const Kernel& k) {
  const TileTable::Gpu* best = gemm_tile_source(table, gpu, library, k.op);
  if (!best) return GemmTile{};
  const TileTable::Gpu::Dense& d = best->dense[k.op == Op::bmm ? 1 : 0];
  const std::uint32_t cell = shape_cell(k);
  int c[4];
  for (int i = 0; i < 4; ++i) c[i] = std::clamp(cell_dim(cell, i), d.lo[i], d.hi[i]);
  return table.tiles[d.tile[dense_index(d, c)]];
}

}  // namespace tilecast
