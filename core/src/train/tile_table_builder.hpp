// Builds the compact GEMM tile-selection table from measured GEMM rows: the
// majority tile per (GPU, op, log2 shape cell), as core/data/models/nvidia-fp32/tile_table.json
// text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tilecast/kernel_eval.hpp"

namespace tilecast::train {

std::string build_tile_table_json(const std::vector<const MeasuredKernel*>& gemm_rows,
                                  const std::map<std::string, GpuSpec>& devices);

}  // namespace tilecast::train
