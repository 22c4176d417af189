// `--weights DIR`: forecast with the kernel_weights.json and tile_table.json that
// `tilecast train --out DIR` wrote instead of the embedded weights.
#pragma once

#include "args.hpp"

namespace tilecast::cli {

// Registers DIR's weights for every later forecast of this process when --weights is given.
void apply_weights_flag(const Args& args);

}  // namespace tilecast::cli
