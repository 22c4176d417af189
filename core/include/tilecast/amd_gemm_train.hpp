// The fit of the analytic AMD FP32 GEMM model (docs/amd-model.md): per op (linear, bmm) five
// parameters by least mean |log(forecast / measured)| (Nelder-Mead on their logarithms from 16
// fixed starts, fixed iterations: deterministic), each row planned with the given tile table as a
// forecast plans it. Writes core/data/models/amd-fp32-gemm/gemm.json.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_csv.hpp"

namespace tilecast {

struct AmdGemmTrainResult {
  std::string json;                        // the model file
  std::array<std::int64_t, 2> samples{};   // [linear, bmm] rows fitted
  std::array<double, 2> train_mape_pct{};  // on those rows
  std::int64_t rows_held_out = 0;          // GEMM rows of held-out devices, never used
};

// Fits on the linear and bmm rows of `rows` whose Device is not in `held_out`; `devices` maps
// Device names to specs, `command` is recorded. Throws tilecast::Error for an unknown Device,
// an op without rows, or a malformed tile table.
AmdGemmTrainResult train_amd_gemm_model(const std::vector<MeasuredKernel>& rows,
                                        const std::map<std::string, GpuSpec>& devices,
                                        std::string_view tile_table_json,
                                        const std::vector<std::string>& held_out,
                                        const std::string& command);

}  // namespace tilecast
