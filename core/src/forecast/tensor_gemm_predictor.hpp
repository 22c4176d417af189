// The analytic tensor-core GEMM model (learned/tensor_gemm.hpp) as a kernel predictor: what
// the registry serves for NVIDIA FP16/BF16 GEMMs, never below the roofline.
#pragma once

#include <memory>

#include "forecast/predictor.hpp"
#include "learned/tensor_gemm.hpp"

namespace tilecast {

// Throws tilecast::Error for an invalid model. Forecasting a kernel outside the gemm family
// throws too (it is registered for that family only).
std::shared_ptr<const KernelPredictor> make_tensor_gemm_predictor(const TensorGemmModel& model);

}  // namespace tilecast
