// Training rows of one op family: features, tile/wave quantities and the
// measured latency, computed with the same code the forecaster runs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "learned/features.hpp"
#include "tilecast/kernel_eval.hpp"

namespace tilecast::train {

struct Sample {
  std::array<double, kMaxFeatures> x{};
  double waves = 1;
  double tile_ms = 0;            // one tile at per-SM roofline throughput
  double roofline_ms = 0;        // the kernel's roofline bound
  double latency_ms = 0;         // measured
  const GpuSpec* gpu = nullptr;  // the row's GPU and kernel, for tile times computed later
  Kernel kernel;
};

struct FamilyData {
  int features = 0;
  std::vector<Sample> samples;
};

// The threadblock tile of a measured GEMM: from its kernel name, split-K from
// the grid's z beyond the batch; 128x128 when the name carries none.
GemmTile measured_gemm_tile(const MeasuredKernel& row);

// A training sample; GEMMs use `gemm_tile` when given, else the measured tile.
Sample make_sample(const GpuSpec& gpu, const MeasuredKernel& row,
                   std::optional<GemmTile> gemm_tile = std::nullopt);

}  // namespace tilecast::train
