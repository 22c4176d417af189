#include "learned/amd_models.hpp"

#include "common/embedded_data.hpp"

namespace tilecast {

const KernelWeights& embedded_amd_kernel_weights() {
  static const KernelWeights weights = [] {
    const std::string_view text = embedded::find("core/data/kernel_weights_amd.json");
    if (text.empty()) return KernelWeights{};
    return parse_kernel_weights(text, "core/data/kernel_weights_amd.json");
  }();
  return weights;
}

const TileTable& embedded_amd_tile_table() {
  static const TileTable table = [] {
    const std::string_view text = embedded::find("core/data/tile_table_amd.json");
    if (text.empty()) return TileTable{};
    return parse_tile_table(text, "core/data/tile_table_amd.json");
  }();
  return table;
}

}  // namespace tilecast
