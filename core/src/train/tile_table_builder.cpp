#include "train/tile_table_builder.hpp"

#include <nlohmann/json.hpp>

#include "kernel/library_profile.hpp"
#include "learned/tile_table.hpp"
#include "tilecast/error.hpp"
#include "train/dataset.hpp"

namespace tilecast::train {

std::string build_tile_table_json(const std::vector<const MeasuredKernel*>& rows,
                                  const std::map<std::string, GpuSpec>& devices) {
  auto key_of = [](const GemmTile& t) { return std::array<int, 3>{t.rows, t.cols, t.split}; };
  std::map<std::array<int, 3>, int> tile_index;
  for (const MeasuredKernel* r : rows) tile_index[key_of(measured_gemm_tile(*r))] = 0;
  if (tile_index.size() > kMaxTiles)
    throw Error("more than " + std::to_string(kMaxTiles) +
                " distinct GEMM tiles in the training data (the tile table's limit)");
  int next = 0;
  for (auto& [k, v] : tile_index) v = next++;

  // device -> op -> cell -> tile -> count
  std::map<std::string, std::map<int, std::map<std::uint32_t, std::map<int, int>>>> votes;
  for (const MeasuredKernel* r : rows)
    ++votes[r->device][r->kernel.op == Op::bmm ? 1 : 0][shape_cell(r->kernel)]
           [tile_index[key_of(measured_gemm_tile(*r))]];

  // The smallest power of two from 256 that indexes every tile: today's tables keep 256.
  std::uint64_t radix = 256;
  while (radix < tile_index.size()) radix *= 2;

  nlohmann::ordered_json j;
  j["format"] = "tilecast-tile-table-3";
  j["cell"] =
      "round(log2(B,M,N,K)) clamped to 0..31, 5 bits each; entry = cell*tile_radix + tile; a list "
      "holds its entries ascending, each written as the difference from the one before (the "
      "first as is)";
  j["tile_radix"] = radix;
  j["tiles"] = nlohmann::ordered_json::array();
  for (const auto& [k, v] : tile_index) j["tiles"].push_back({k[0], k[1], k[2]});
  j["gpus"] = nlohmann::ordered_json::array();
  for (const auto& [device, ops] : votes) {
    nlohmann::ordered_json g;
    g["name"] = device;
    const GpuSpec& spec = devices.at(device);
    const auto key = gpu_table_key(spec);
    g["key"] = {key[0], key[1], key[2], key[3]};
    const std::string_view generation =
        library_profile_for(spec).gemm_kernel_generation(spec.architecture);
    if (!generation.empty()) g["kernel_generation"] = std::string(generation);
    for (const auto& [op, cells] : ops) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      std::uint64_t previous = 0;  // cells ascend (a map), so entries do
      for (const auto& [cell, counts] : cells) {
        int best = -1, best_n = 0;
        for (const auto& [tile, cnt] : counts)
          if (cnt > best_n) {
            best = tile;
            best_n = cnt;
          }
        const std::uint64_t entry = std::uint64_t(cell) * radix + std::uint64_t(best);
        list.push_back(entry - previous);
        previous = entry;
      }
      g[op == 1 ? "bmm" : "linear"] = list;
    }
    j["gpus"].push_back(g);
  }
  return j.dump();
}

}  // namespace tilecast::train
