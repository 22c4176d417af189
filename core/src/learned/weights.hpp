// The trained utilization models, one per op family, parsed from the embedded
// core/data/kernel_weights.json (written by `tilecast train`).
#pragma once

#include <array>
#include <optional>
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
  // Softmax: a tile's time is its share of the element-wise model's streaming time
  // (streaming_ms) rather than of the roofline. Set by "tile_time": "streaming".
  bool streaming_tiles = false;
  // The three head logits (gamma, alpha, overhead) for raw features `x`.
  void forward(const double* x, double* out) const;
};

struct KernelWeights {
  std::array<std::optional<FamilyModel>, 4> families;  // indexed by OpFamily
  std::vector<std::string> trained_on;                 // device names of the training rows
};

std::string_view family_name(OpFamily f);
// Throws tilecast::Error naming `origin` and the bad field.
KernelWeights parse_kernel_weights(std::string_view json_text, std::string_view origin);
// One family's entry of that file (the trainer reads back what it wrote).
FamilyModel parse_family_model(std::string_view json_text, std::string_view origin, OpFamily f);
// The embedded weights; throws when the library was built without them.
const KernelWeights& embedded_kernel_weights();

}  // namespace tilecast
