// The trained utilization models, one per op family keyed by the family's name, parsed from
// the embedded core/data/models/nvidia-fp32/kernel_weights.json (written by `tilecast train`) or
// given by a test.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "learned/mlp.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

struct FamilyModel {
  Mlp steady;  // tile and GPU features -> gamma (logit)
  Mlp tail;    // all features -> alpha, overhead (logits)
  double overhead_max_ms = 0;
  // Row kernels: a tile's time is its share of the element-wise model's streaming time
  // (reference_streaming_time) rather than of the roofline. Set by "tile_time": "streaming"
  // (over B x H elements) or "streaming traffic" (over the family's traffic), whichever the
  // family is learned against.
  bool streaming_tiles = false;
  // ... and that streaming time without the element-wise kernel's launch cost ("... without
  // launch"; the family's own overhead head carries its launch), or with it.
  bool reference_without_launch = false;
  // The three head logits (gamma, alpha, overhead) for raw features `x`.
  void forward(const double* x, double* out) const;
};

struct KernelWeights {
  std::map<std::string, FamilyModel, std::less<>> families;  // by family name
  std::vector<std::string> trained_on;                       // device names of the training rows
  // The family's model; null when it has none.
  const FamilyModel* find(std::string_view family) const;
};

std::string_view family_name(OpFamily f);
// Reads the models of the registered families present (others are left out). Throws
// tilecast::Error naming `origin` and the bad field; a family's "features", when listed, must
// be its features in order.
KernelWeights parse_kernel_weights(std::string_view json_text, std::string_view origin);
// One family's entry of that file (the trainer reads back what it wrote).
FamilyModel parse_family_model(std::string_view json_text, std::string_view origin, OpFamily f);
// The embedded weights: embedded_weights(id) (forecast/model_registry.hpp).

}  // namespace tilecast
