// The public kernel forecast: the selected predictor (forecast/predictor.hpp) for the kernel.
#include "tilecast/kernel_forecast.hpp"

#include <algorithm>

#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/error_bands.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {

namespace {

constexpr EnumName<Predictor> kPredictors[] = {{"tilecast", Predictor::tilecast},
                                               {"roofline", Predictor::roofline}};

// PyTorch eager's cost of one call of an FP32 kernel, by the per-call FP32 model. Most of its
// nets hold that cost in their fixed-cost head (element-wise ops: ~31 us on the H200 for the
// smallest kernel, which is all head); some learned it as a low utilization instead (layer
// norm: a head of 2 us, 40 us in all for the smallest kernel), and for those the whole
// forecast of the op's smallest kernel (every dim 1), where the GPU's work is nil, is the cost.
double eager_call_ms(const GpuSpec& gpu, const Kernel& fp32) {
  const KernelPredictor& model = learned_model(gpu, fp32);
  const double head_ms = model.forecast(gpu, fp32).overhead_ms;
  Kernel smallest = fp32;
  smallest.dims = {1, 1, 1, 1};
  const KernelForecast call = model.forecast(gpu, smallest);
  return call.overhead_ms < call.latency_ms / 2 ? std::max(head_ms, call.latency_ms) : head_ms;
}

}  // namespace

EnumNames<Predictor> predictor_names() { return kPredictors; }

Predictor parse_predictor(std::string_view name) {
  return parse_enum(predictor_names(), name, "a predictor");
}

std::string_view predictor_name(Predictor p) { return enum_name(predictor_names(), p); }

KernelForecast forecast_kernel(const GpuSpec& gpu, const Kernel& kernel, Predictor predictor,
                               Launch launch) {
  if (predictor == Predictor::roofline) return RooflinePredictor().forecast(gpu, kernel);
  KernelForecast f = learned_model(gpu, kernel).forecast(gpu, kernel);
  if (launch == Launch::eager && kernel.dtype != DataType::fp32 && timed_kernel_only(gpu, kernel)) {
    // PyTorch eager's per-call cost, as the vendor's per-call FP32 model has it (header)
    Kernel fp32 = kernel;
    fp32.dtype = DataType::fp32;
    if (has_learned_model(gpu, fp32) && !timed_kernel_only(gpu, fp32)) {
      const double eager_ms = eager_call_ms(gpu, fp32);
      if (eager_ms > f.overhead_ms) {
        f.latency_ms += eager_ms - f.overhead_ms;
        f.overhead_ms = eager_ms;
      }
    }
  }
  // operands the library's tensor-core kernels cannot load 16 bytes at a time: its narrow-load
  // kernels take at least their measured multiples of the roofline's times, the call included,
  // as the measurement had it (kernel/library_profile.hpp)
  if (const auto* slow = library_profile_for(gpu).misaligned_gemm_class(kernel)) {
    const RooflineTerms t = roofline_terms(gpu, kernel);
    const double floor_ms =
        std::max(slow->compute_multiple * t.compute_ms, slow->memory_multiple * t.memory_ms);
    if (floor_ms > f.latency_ms) {
      f.latency_ms = floor_ms;
      f.utilization = std::min(1.0, f.roofline_ms / (f.latency_ms - f.overhead_ms));
      f.misaligned_floor = true;
    }
  }
  if (const ErrorBand* band =
          kernel.dtype == kBandPrecision
              ? embedded_error_bands().kernel_band(family_of(kernel.op).name, f.latency_ms)
              : nullptr) {
    f.band_low_ms = f.latency_ms * band->low;
    f.band_high_ms = f.latency_ms * band->high;
  }
  return f;
}

}  // namespace tilecast
