// Forecasting with weights trained at run time (`tilecast train --out DIR`, the
// generalization protocol's folds) instead of the embedded ones.
#pragma once

#include <string_view>

namespace tilecast {

// Parses the two files `tilecast train --out DIR` writes (kernel_weights.json,
// tile_table.json) and makes them the learned model of every FP32 kernel, for every later
// kernel and model forecast of this process (the latest registered model wins). Throws
// tilecast::Error naming `origin` when either file is malformed.
void use_learned_weights(std::string_view weights_json, std::string_view tile_table_json,
                         std::string_view origin);
// Makes the embedded weights the learned model again.
void use_embedded_weights();

}  // namespace tilecast
