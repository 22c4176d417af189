// The analytic AMD FP32 GEMM model (learned/amd_gemm.hpp) as a kernel predictor: what the
// registry serves for GEMMs on AMD GPUs, with the AMD tile table's macro tiles, never below
// the roofline. GPUs the tile table measured (the same specs as one of its GPUs) keep the
// learned net, which is more accurate in distribution; every other AMD GPU gets the analytic
// model, which carries better to a GPU left out (docs/amd-model.md).
#pragma once

#include <memory>

#include "forecast/predictor.hpp"
#include "learned/amd_gemm.hpp"
#include "learned/tile_table.hpp"

namespace tilecast {

// True when `gpu` has the specs of one of the table's measured GPUs (each of gpu_table_key's
// log2 components within kMeasuredKeyTolerance).
bool is_measured_gpu(const TileTable& tiles, const GpuSpec& gpu);
inline constexpr double kMeasuredKeyTolerance = 0.02;  // log2 units: about 1.4 %

// Throws tilecast::Error for an invalid model or a missing `measured` predictor. Forecasting a
// kernel outside the gemm family throws too (it is registered for that family only).
std::shared_ptr<const KernelPredictor> make_amd_gemm_predictor(
    const AmdGemmModel& model, std::shared_ptr<const TileTable> tiles,
    std::shared_ptr<const KernelPredictor> measured);
std::shared_ptr<const KernelPredictor> make_amd_gemm_predictor(
    const AmdGemmModel& model, TileTable tiles, std::shared_ptr<const KernelPredictor> measured);

}  // namespace tilecast
