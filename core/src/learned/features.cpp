#include "learned/features.hpp"

#include <algorithm>
#include <cmath>

#include "kernel/dram_efficiency.hpp"
#include "kernel/issue_ceiling.hpp"
#include "kernel/tiles.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {
namespace {

using In = FeatureInputs;
double lg(double x) { return feature_log2(x); }

// The common features, in the order the weights file lists them.
const std::vector<Feature>& common_features() {
  static const std::vector<Feature> list = {
      {"log2_tile_flops", [](const In& in, int) { return lg(in.plan.tile_flops); }},
      {"log2_tile_bytes", [](const In& in, int) { return lg(in.plan.tile_bytes); }},
      {"log2_wave_bytes_per_sm",
       [](const In& in, int) { return lg(double(in.plan.waves) * in.plan.tile_bytes); }, 0, false},
      {"log2_gflops_per_sm", [](const In& in, int) { return lg(in.peak_gflops / in.sm); }},
      {"log2_mem_bw_gbps_per_sm",
       [](const In& in, int) { return lg(learned_mem_bw_gbps(in.gpu, in.library) / in.sm); }},
      {"log2_l2_mb_per_sm", [](const In& in, int) { return lg(in.gpu.l2_mb / in.sm); }},
      {"log2_waves", [](const In& in, int) { return lg(double(in.plan.waves)); }, 0, false},
      {"log2_sm_fill",
       [](const In& in, int) { return lg(std::min(double(in.plan.tiles), in.sm) / in.sm); }, 0,
       false},
      {"log2_bytes_over_l2",
       [](const In& in, int) { return lg(kernel_bytes(in.kernel) / (in.gpu.l2_mb * 1048576.0)); },
       0, false},
      {"log2_tile_rows", [](const In& in, int) { return lg(in.plan.tile_rows); }},
      {"log2_tile_cols", [](const In& in, int) { return lg(in.plan.tile_cols); }},
      {"log2_tile_depth", [](const In& in, int) { return lg(in.plan.tile_depth); }},
      {"log2_intensity_over_ridge",
       [](const In& in, int) {
         return lg(in.plan.tile_flops / std::max(in.plan.tile_bytes, 1.0)) -
                lg(in.peak_gflops / learned_mem_bw_gbps(in.gpu, in.library));
       }},
      {"log2_num_sm", [](const In& in, int) { return lg(in.sm); }},
  };
  return list;
}

}  // namespace

double feature_log2(double x) { return std::log2(std::max(x, 1e-30)); }

double log2_alignment(std::int64_t n) {
  int a = 0;
  while (a < 4 && n > 0 && n % (std::int64_t{2} << a) == 0) ++a;
  return double(a);
}

std::vector<Feature> with_common_features(std::vector<Feature> own) {
  std::vector<Feature> all = common_features();
  all.insert(all.end(), own.begin(), own.end());
  return all;
}

std::vector<Feature> tail_only(std::vector<Feature> features,
                               const std::vector<std::string>& names) {
  for (Feature& f : features)
    for (const std::string& n : names)
      if (f.name == n) f.steady = false;
  return features;
}

namespace {

// A scalar-load kernel's streaming rates (learned/features.hpp), bytes per ms. Every SM busy:
// its resident threads' loads in flight, held at kScalarLoadMinStreamShare of its share of the
// bandwidth past the training range.
double busy_bytes_per_ms_sm(const GpuSpec& gpu, const LibraryProfile& library,
                            double bw_bytes_per_ms_sm) {
  return std::min(bw_bytes_per_ms_sm, std::max(resident_threads_per_sm(gpu, library) *
                                                   kScalarLoadBytesPerThreadPerS * 1e-3,
                                               kScalarLoadMinStreamShare * bw_bytes_per_ms_sm));
}

// One block alone on its SM, `blocks` of them at once: the A100's resident-thread rate at the
// GPU's clock, within the blocks' share of the bandwidth.
double lone_bytes_per_ms(const GpuSpec& gpu, double mem_bw_gbps, double blocks) {
  return std::min(kLoneBlockThreads * kScalarLoadBytesPerThreadPerS *
                      (gpu.clock_mhz / kLoneBlockReferenceClockMhz) * 1e-3,
                  mem_bw_gbps * 1e6 / blocks);
}

// A scalar-load kernel of one `threads`-thread block per tile, run in occupancy waves: as many
// blocks as the SMs hold at once (max_threads_per_sm / threads each) run side by side. A wave
// of b blocks takes its bytes at every SM's busy rate, and at least one lone block's time
// while no SM holds two (a block alone is bound by its own loads in flight, within the
// bandwidth the b blocks share). The kernel's time over its waves of one block per SM (the
// features' waves) is its tile's.
double occupancy_tile_ms(const GpuSpec& gpu, const LibraryProfile& library, const TilePlan& plan,
                         std::int64_t threads, double mem_bw_gbps) {
  const double sm = double(std::max(gpu.num_sm, 1));
  const double busy = busy_bytes_per_ms_sm(gpu, library, mem_bw_gbps * 1e6 / sm);
  const auto wave_ms = [&](double b) {
    const double busy_ms = b * plan.tile_bytes / (sm * busy);
    if (b > sm) return busy_ms;
    return std::max(busy_ms, plan.tile_bytes / lone_bytes_per_ms(gpu, mem_bw_gbps, b));
  };
  const double per_wave = sm * resident_blocks_per_sm(gpu, library, threads);
  const double tiles = double(plan.tiles);
  const double full = std::floor(tiles / per_wave);
  const double rest = tiles - full * per_wave;
  const double ms = full * wave_ms(per_wave) + (rest > 0 ? wave_ms(rest) : 0.0);
  return ms / double(std::max<std::int64_t>(plan.waves, 1));
}

}  // namespace

double tile_roofline_ms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan,
                        const LibraryProfile& library) {
  const double sm = double(std::max(gpu.num_sm, 1));
  const double flop_per_ms_sm =
      peak_gflops(gpu, k) * fp32_issue_ceiling(gpu, k, library) * 1e6 / sm;
  const double compute_ms = plan.tile_flops / flop_per_ms_sm;
  const FamilyTraits& traits = family_of(k.op);
  const double mem_bw_gbps = learned_mem_bw_gbps(gpu, library);
  if (traits.tiles_share_operands) {
    const double wave_bytes = kernel_bytes(k) / double(std::max<std::int64_t>(plan.waves, 1));
    return std::max(compute_ms, wave_bytes / (mem_bw_gbps * 1e6));
  }
  double issue_ms = 0;
  if (traits.issue_ops && traits.flops && plan.tile_flops > 0) {
    const double tile_elements = traits.elements(k) * plan.tile_flops / traits.flops(k);
    issue_ms = tile_elements * traits.issue_ops(k) / (kInt32LanesPerSm * gpu.clock_mhz * 1e3);
  }
  const std::int64_t threads = traits.block_threads ? traits.block_threads(k) : 0;
  if (traits.scalar_loads && threads > 0)
    return std::max(
        {compute_ms, issue_ms, occupancy_tile_ms(gpu, library, plan, threads, mem_bw_gbps)});
  double bytes_per_ms_sm = mem_bw_gbps * 1e6 / sm;
  if (traits.scalar_loads && plan.tiles <= std::int64_t(sm)) {
    // a block size not known (the gather): one block per SM, alone, within the bandwidth the
    // blocks share
    bytes_per_ms_sm =
        lone_bytes_per_ms(gpu, mem_bw_gbps, double(std::max<std::int64_t>(plan.tiles, 1)));
  } else if (traits.scalar_loads) {
    bytes_per_ms_sm = busy_bytes_per_ms_sm(gpu, library, bytes_per_ms_sm);
  }
  return std::max({compute_ms, issue_ms, plan.tile_bytes / bytes_per_ms_sm});
}

std::vector<std::string> feature_names(OpFamily family) {
  std::vector<std::string> names;
  for (const Feature& f : family_traits(family).features) names.push_back(f.name);
  return names;
}

Features kernel_features(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan,
                         const LibraryProfile& library) {
  const FeatureInputs in{
      gpu, k, plan, library, double(std::max(gpu.num_sm, 1)), peak_gflops(gpu, k)};
  Features f;
  for (const Feature& feature : family_of(k.op).features)
    f.v[std::size_t(f.count++)] = feature.value(in, feature.arg);
  return f;
}

}  // namespace tilecast
