// The public kernel forecast: the selected predictor (forecast/predictor.hpp) for the kernel.
#include "tilecast/kernel_forecast.hpp"

#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "kernel/family.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/error_bands.hpp"

namespace tilecast {

namespace {

constexpr EnumName<Predictor> kPredictors[] = {{"tilecast", Predictor::tilecast},
                                               {"roofline", Predictor::roofline}};

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
      const double eager_ms = learned_model(gpu, fp32).forecast(gpu, fp32).overhead_ms;
      if (eager_ms > f.overhead_ms) {
        f.latency_ms += eager_ms - f.overhead_ms;
        f.overhead_ms = eager_ms;
      }
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
