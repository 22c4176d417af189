// The range an analytic GEMM model's fitted parameters are read within (learned/tensor_gemm.cpp,
// learned/amd_gemm.cpp): far beyond any fit, short of overflow in a forecast.
#pragma once

namespace tilecast::detail {

constexpr double kMaxFittedScale = 1e6;
constexpr double kMaxFittedOverheadMs = 1e3;

}  // namespace tilecast::detail
