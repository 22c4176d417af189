// A utilization model's three heads and how they compose a kernel's latency:
// waves x one tile's time / utilization + a fixed per-kernel overhead.
#pragma once

namespace tilecast {

// gamma (peak utilization), alpha (the share of it lost in the first wave) and the fixed
// per-kernel overhead.
struct UtilizationHeads {
  double gamma = 1;
  double alpha = 0;
  double overhead_ms = 0;
};

double sigmoid(double x);
// The heads from a net's three raw outputs (logits); the overhead is capped.
UtilizationHeads heads_from_outputs(const double* out, double overhead_max_ms);
// gamma * (1 - alpha / waves): in (0, 1), rising with the number of waves.
double utilization(const UtilizationHeads& h, double waves);
// waves x one tile's time / utilization + overhead.
double compose_latency_ms(double waves, double tile_ms, const UtilizationHeads& h);

}  // namespace tilecast
