// A small fully connected network (ReLU hidden layers, linear outputs) with
// input standardisation: the inference half of the learned utilization model.
#pragma once

#include <string>
#include <vector>

namespace tilecast {

struct MlpLayer {
  int in = 0;
  int out = 0;
  std::vector<double> w;   // out x in, row-major
  std::vector<double> b;   // out
  std::vector<double> wt;  // in x out (w transposed), filled by Mlp::prepare, for the fast forward
};

struct Mlp {
  std::vector<double> mean;    // per input
  std::vector<double> scale;   // 1 / std per input
  std::vector<double> lo, hi;  // the training range per input: inputs are clamped to it, so
                               // the model never extrapolates beyond what was measured
  std::vector<MlpLayer> layers;

  int inputs() const { return layers.empty() ? 0 : layers.front().in; }
  int outputs() const { return layers.empty() ? 0 : layers.back().out; }
  // Builds the transposed weights forward() reads; call once after filling the layers.
  void prepare();
  // Writes outputs() values to `out`; `x` holds inputs() raw (unstandardised) features.
  // Sums run over inputs in order, so results equal the plain row-major product bit for bit.
  void forward(const double* x, double* out) const;
};

}  // namespace tilecast
