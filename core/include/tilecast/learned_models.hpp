// Learned kernel models given as text (a `tilecast train` output pair) rather than embedded:
// registered for one vendor's FP32 kernels, ahead of the embedded ones, so that a trained-but-
// not-embedded model (e.g. one GPU held out, scripts/eval_amd_cross_gpu.sh) can be evaluated.
#pragma once

#include <string_view>

namespace tilecast {

// Parses the weights and GEMM tile table (throws tilecast::Error naming `origin`) and makes
// them the FP32 model of `vendor`'s GPUs for the rest of the process, GEMMs included (ahead of
// an embedded analytic GEMM model).
void register_fp32_weights(std::string_view vendor, std::string_view weights_json,
                           std::string_view tile_table_json, std::string_view origin);

// Parses an analytic AMD GEMM model (`tilecast train-amd-gemm` output), the learned weights and
// the tile table trained with it (throws tilecast::Error naming `origin`) and makes them the FP32
// GEMM model of AMD GPUs for the rest of the process: the net for the table's measured GPUs,
// the analytic model for the others.
void register_amd_gemm_model(std::string_view model_json, std::string_view weights_json,
                             std::string_view tile_table_json, std::string_view origin);

}  // namespace tilecast
