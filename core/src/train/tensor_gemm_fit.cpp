#include "train/tensor_gemm_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "learned/tile_table.hpp"
#include "tilecast/error.hpp"

namespace tilecast::train {
namespace {

using Vec3 = std::array<double, 3>;

// Gaussian elimination with partial pivoting on the 3x3 normal equations.
Vec3 solve3(std::array<Vec3, 3> a, Vec3 b) {
  for (int i = 0; i < 3; ++i) {
    int p = i;
    for (int r = i + 1; r < 3; ++r)
      if (std::fabs(a[r][i]) > std::fabs(a[p][i])) p = r;
    std::swap(a[i], a[p]);
    std::swap(b[i], b[p]);
    if (a[i][i] == 0) throw Error("tensor-core GEMM fit: singular normal equations");
    for (int r = 0; r < 3; ++r) {
      if (r == i) continue;
      const double f = a[r][i] / a[i][i];
      for (int c = i; c < 3; ++c) a[r][c] -= f * a[i][c];
      b[r] -= f * b[i];
    }
  }
  return {b[0] / a[0][0], b[1] / a[1][1], b[2] / a[2][2]};
}

}  // namespace

TensorGemmFit fit_tensor_gemm(const std::vector<Sample>& samples) {
  if (samples.empty()) throw Error("tensor-core GEMM fit: no GEMM samples");
  static const TileTable no_table;  // tensor-core GEMMs choose their tile by rule
  std::vector<TensorGemmTerms> terms;
  terms.reserve(samples.size());
  for (const Sample& s : samples)
    terms.push_back(tensor_gemm_terms(
        *s.gpu, s.kernel, plan_kernel(*s.gpu, s.kernel, no_table, library_profile_for(*s.gpu))));
  Vec3 p = {1.0, 1.0, 0.0};  // compute_scale, bandwidth_scale, overhead_ms
  std::vector<double> weight(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i)
    weight[i] = 1.0 / (samples[i].latency_ms * samples[i].latency_ms);
  for (int it = 0; it < kTensorGemmIterations; ++it) {
    std::array<Vec3, 3> a{};
    Vec3 b{};
    std::array<bool, 2> used{};
    std::vector<Vec3> x(samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const bool compute = p[0] * terms[i].compute_ms >= p[1] * terms[i].memory_ms;
      used[compute ? 0 : 1] = true;
      x[i] = compute ? Vec3{terms[i].compute_ms, 0, 1} : Vec3{0, terms[i].memory_ms, 1};
      for (int r = 0; r < 3; ++r) {
        b[r] += weight[i] * x[i][r] * samples[i].latency_ms;
        for (int c = 0; c < 3; ++c) a[r][c] += weight[i] * x[i][r] * x[i][c];
      }
    }
    for (int k = 0; k < 2; ++k)  // a branch no sample takes keeps its scale
      if (!used[k]) {
        a[k] = {0, 0, 0};
        a[k][k] = 1;
        b[k] = p[k];
      }
    p = solve3(a, b);
    // Weights 1 / (y^2 |relative error|): the weighted squares approach the sum of |relative
    // errors| (floored at 0.1 % so exact fits do not dominate).
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double y = samples[i].latency_ms;
      const double pred = p[0] * x[i][0] + p[1] * x[i][1] + p[2];
      weight[i] = 1.0 / (y * y * std::max(std::fabs(pred - y) / y, 1e-3));
    }
  }
  TensorGemmFit fit;
  fit.model = {p[0], p[1], std::max(p[2], 0.0)};
  if (!fit.model.valid() || !std::isfinite(p[2]))
    throw Error("tensor-core GEMM fit: a scale came out non-positive (compute " +
                std::to_string(p[0]) + ", bandwidth " + std::to_string(p[1]) + ")");
  double sum = 0;
  for (std::size_t i = 0; i < samples.size(); ++i)
    sum +=
        std::fabs(fit.model.latency_ms(terms[i]) - samples[i].latency_ms) / samples[i].latency_ms;
  fit.train_mape_pct = 100.0 * sum / double(samples.size());
  return fit;
}

}  // namespace tilecast::train
