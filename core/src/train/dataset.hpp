// Training rows of one op family: features, tile/wave quantities and the
// measured latency, computed with the same code the forecaster runs.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernel/library_profile.hpp"
#include "learned/features.hpp"
#include "learned/tile_table.hpp"
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
// the grid's z beyond the batch; 128x128 when the name carries none. (The tile table is
// built from these; samples take the table's tile, as a forecast does.)
GemmTile measured_gemm_tile(const MeasuredKernel& row);

// A training sample, planned as a forecast plans it (plan_kernel): GEMMs take their tile from
// `gemm_tiles`, so the utilization learned goes with the tile a forecast will use.
Sample make_sample(const GpuSpec& gpu, const MeasuredKernel& row, const TileTable& gemm_tiles,
                   const LibraryProfile& library);

}  // namespace tilecast::train
