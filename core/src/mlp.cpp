#include "mlp.hpp"

#include <algorithm>
#include <cmath>

namespace tilecast {

void Mlp::prepare() {
  for (MlpLayer& L : layers) {
    L.wt.assign(L.w.size(), 0.0);
    for (int o = 0; o < L.out; ++o)
      for (int i = 0; i < L.in; ++i)
        L.wt[std::size_t(i) * L.out + o] = L.w[std::size_t(o) * L.in + i];
  }
}

void Mlp::forward(const double* x, double* out) const {
  double a[64];
  double b[64];
  const int n0 = inputs();
  for (int i = 0; i < n0; ++i) a[i] = (std::clamp(x[i], lo[i], hi[i]) - mean[i]) * scale[i];
  double* cur = a;
  double* next = b;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const MlpLayer& L = layers[l];
    for (int o = 0; o < L.out; ++o) next[o] = L.b[o];
    for (int i = 0; i < L.in; ++i) {
      const double v = cur[i];
      if (v == 0.0) continue;  // ReLU zeros add nothing
      const double* col = &L.wt[std::size_t(i) * L.out];
      for (int o = 0; o < L.out; ++o) next[o] += col[o] * v;
    }
    if (l + 1 < layers.size())
      for (int o = 0; o < L.out; ++o) next[o] = std::max(next[o], 0.0);
    std::swap(cur, next);
  }
  for (int o = 0; o < outputs(); ++o) out[o] = cur[o];
}

double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

UtilizationHeads heads_from_outputs(const double* out, double overhead_max_ms) {
  UtilizationHeads h;
  h.gamma = sigmoid(out[0]);
  h.alpha = sigmoid(out[1]);
  h.overhead_ms = overhead_max_ms * sigmoid(out[2]);
  return h;
}

double utilization(const UtilizationHeads& h, double waves) {
  return std::max(h.gamma * (1.0 - h.alpha / std::max(waves, 1.0)), 1e-6);
}

}  // namespace tilecast

namespace tilecast {

double compose_latency_ms(double waves, double tile_ms, const UtilizationHeads& h) {
  return waves * tile_ms / utilization(h, waves) + h.overhead_ms;
}

}  // namespace tilecast
