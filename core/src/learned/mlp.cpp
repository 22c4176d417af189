#include "learned/mlp.hpp"

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

namespace {

// One layer, next = b + W cur, summed over inputs in order. `Out` fixed at compile time
// lets the compiler vectorize across outputs for the widths the trainer uses; 0 is any
// width. Every variant adds the same terms in the same order, so results are identical.
template <int Out>
void dense(const MlpLayer& L, const double* cur, double* next) {
  const int out = Out > 0 ? Out : L.out;
  for (int o = 0; o < out; ++o) next[o] = L.b[o];
  for (int i = 0; i < L.in; ++i) {
    const double v = cur[i];
    if (v == 0.0) continue;  // ReLU zeros add nothing
    const double* col = &L.wt[std::size_t(i) * std::size_t(out)];
    for (int o = 0; o < out; ++o) next[o] += col[o] * v;
  }
}

}  // namespace

void Mlp::forward(const double* x, double* out) const {
  double a[64];
  double b[64];
  const int n0 = inputs();
  for (int i = 0; i < n0; ++i) a[i] = (std::clamp(x[i], lo[i], hi[i]) - mean[i]) * scale[i];
  double* cur = a;
  double* next = b;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const MlpLayer& L = layers[l];
    switch (L.out) {
      case 32: dense<32>(L, cur, next); break;
      case 16: dense<16>(L, cur, next); break;
      default: dense<0>(L, cur, next); break;
    }
    if (l + 1 < layers.size())
      for (int o = 0; o < L.out; ++o) next[o] = std::max(next[o], 0.0);
    std::swap(cur, next);
  }
  for (int o = 0; o < outputs(); ++o) out[o] = cur[o];
}

}  // namespace tilecast
