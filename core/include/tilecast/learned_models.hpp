// Learned kernel models given as text (a `tilecast train` output pair) rather than embedded:
// registered for one vendor's FP32 kernels, ahead of the embedded ones, so that a trained-but-
// not-embedded model (e.g. one GPU held out, scripts/eval_amd_cross_gpu.sh) can be evaluated.
#pragma once

#include <string_view>

namespace tilecast {

// Parses the weights and GEMM tile table (throws tilecast::Error naming `origin`) and makes
// them the FP32 model of `vendor`'s GPUs for the rest of the process.
void register_fp32_weights(std::string_view vendor, std::string_view weights_json,
                           std::string_view tile_table_json, std::string_view origin);

}  // namespace tilecast
