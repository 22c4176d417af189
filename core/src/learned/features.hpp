// The learned model's inputs: log2 of per-SM-normalised tile, wave and GPU
// quantities, shared by inference and the trainer so both see identical numbers.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"
#include "kernel/tiles.hpp"

namespace tilecast {

inline constexpr int kMaxFeatures = 32;

struct Features {
  int count = 0;
  std::array<double, kMaxFeatures> v{};
};

Features kernel_features(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan);
std::vector<std::string> feature_names(OpFamily family);

// One tile's time at full roofline throughput (ms): the larger of its compute at
// peak/SMs and its traffic at bandwidth/SMs. GEMM tiles reuse operands through L2,
// so their traffic is the kernel's minimal DRAM traffic per wave at full bandwidth.
double tile_roofline_ms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan);

}  // namespace tilecast
