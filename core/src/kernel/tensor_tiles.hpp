// The threadblock tile of a tensor-core GEMM (FP16, BF16 and the other non-FP32 types). The
// measured data of these kernels (vidur) names no kernels, so the tile is chosen by a rule
// rather than looked up: among the CTA shapes of cuBLAS's Ampere half-precision kernels, the
// one with the least modelled time (waves x a tile's FLOPs at the tensor peak per SM), ties
// going to the larger tile. Chosen over a fixed 128x128 by the A100 <-> A40 cross-GPU error
// (docs/fp16-model.md).
#pragma once

#include "kernel/tiles.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

// Rows along the output features (K), cols along the input rows (M), as GemmTile.
GemmTile tensor_core_gemm_tile(const Kernel& k, int num_sm);

}  // namespace tilecast
