#include "learned/heads.hpp"

#include <algorithm>
#include <cmath>

namespace tilecast {

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

double compose_latency_ms(double waves, double tile_ms, const UtilizationHeads& h) {
  return waves * tile_ms / utilization(h, waves) + h.overhead_ms;
}

}  // namespace tilecast
