// The FP32 kernel models of AMD Instinct GPUs: weights and GEMM tile table trained on the
// NeuSight MI100 (CDNA 1) and MI210 (CDNA 2) measurements by scripts/train_amd.sh
// (core/data/kernel_weights_amd.json, core/data/tile_table_amd.json, embedded). Kept apart
// from the NVIDIA models: the two vendors' libraries launch other kernels (rocBLAS/Tensile
// macro tiles, 1024-element blocks, wavefronts of 64), and a separate model leaves every
// NVIDIA forecast as it was (docs/amd-model.md).
#pragma once

#include "learned/tile_table.hpp"
#include "learned/weights.hpp"

namespace tilecast {

// Empty when the library was built without them.
const KernelWeights& embedded_amd_kernel_weights();
const TileTable& embedded_amd_tile_table();

}  // namespace tilecast
