#include "kernel/tensor_tiles.hpp"

#include <algorithm>
#include <cmath>

namespace tilecast {
namespace {

// CTA shapes of the sm80 half-precision cuBLAS/CUTLASS kernels (e.g.
// ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_stages_64x3_tn), largest first: the order
// breaks ties.
constexpr GemmTile kCandidates[] = {{256, 128}, {128, 256}, {128, 128}, {256, 64},
                                    {64, 256},  {128, 64},  {64, 128},  {64, 64}};

}  // namespace

GemmTile tensor_core_gemm_tile(const Kernel& k, int num_sm) {
  const double b = double(k.dims[0]), m = double(k.dims[1]), out = double(k.dims[3]);
  const double sm = double(std::max(num_sm, 1));
  GemmTile best = kCandidates[0];
  double best_cost = -1;
  for (const GemmTile& t : kCandidates) {
    // Waves x tile area: the depth and the per-SM peak are common to every candidate.
    const double tiles = b * std::ceil(out / t.rows) * std::ceil(m / t.cols);
    const double cost = std::ceil(tiles / sm) * double(t.rows) * double(t.cols);
    if (best_cost < 0 || cost < best_cost) {
      best = t;
      best_cost = cost;
    }
  }
  return best;
}

}  // namespace tilecast
