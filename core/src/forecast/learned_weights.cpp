// Registers run-time weights (or the embedded ones again) as the FP32 learned model.
#include "tilecast/learned_weights.hpp"

#include <memory>
#include <string>

#include "forecast/predictor.hpp"

namespace tilecast {

void use_learned_weights(std::string_view weights_json, std::string_view tile_table_json,
                         std::string_view origin) {
  const std::string o(origin);
  register_learned_model(
      {"", DataType::fp32, ""},
      make_learned_predictor(parse_kernel_weights(weights_json, o + "/kernel_weights.json"),
                             parse_tile_table(tile_table_json, o + "/tile_table.json")));
}

void use_embedded_weights() {
  register_learned_model(
      {"", DataType::fp32, ""},
      std::make_shared<LearnedPredictor>(embedded_kernel_weights(), embedded_tile_table()));
}

}  // namespace tilecast
