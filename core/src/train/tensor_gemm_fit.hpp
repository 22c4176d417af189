// The fit of the analytic tensor-core GEMM model (learned/tensor_gemm.hpp): deterministic
// iteratively reweighted least squares on relative error that converges to the least mean
// absolute percentage error (the target metric), each sample on the branch of the max() that
// is active under the current parameters.
#pragma once

#include <vector>

#include "learned/tensor_gemm.hpp"
#include "train/dataset.hpp"

namespace tilecast::train {

inline constexpr int kTensorGemmIterations = 50;

struct TensorGemmFit {
  TensorGemmModel model;
  double train_mape_pct = 0;  // on the samples fitted
};

// Throws tilecast::Error when there are no samples or the fit leaves a scale non-positive.
TensorGemmFit fit_tensor_gemm(const std::vector<Sample>& samples);

}  // namespace tilecast::train
