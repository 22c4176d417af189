// The 80% error band of a forecast: multipliers of the forecast latency at the 10th and 90th
// percentiles of measured / forecast that a new architecture's forecasts are expected to show,
// from the generalization protocol's out-of-architecture residuals (docs/generalization.md).
// Kernels: per op family and size class (the forecast latency's range); whole models: per mode.
// Written by `tilecast eval-generalization` into core/data/error_bands.json and embedded like the
// weights.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/kernel_forecast.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast {

// The precision the bands' residuals were measured in (the protocol's FP32 kernels and whole
// models). A kernel forecast in another precision carries no band: the FP32 kernel bands hold
// under half of the H200's BF16 kernels (docs/generalization.md, "Other precisions"). A
// whole-model or serving forecast in another precision carries the FP32 whole-model band by
// transfer, checked there against BF16 whole models and published FP16/BF16/FP8 serving runs.
inline constexpr DataType kBandPrecision = DataType::fp32;
// Whether a whole-model band in `dtype` is the FP32 one carried over (the caveats say so).
inline constexpr bool model_band_transferred(DataType dtype) { return dtype != kBandPrecision; }

struct ErrorBand {
  double low = 1;      // measured / forecast at the 10th percentile
  double high = 1;     // ... at the 90th
  std::int64_t n = 0;  // residuals it was fitted on
};

struct ErrorBands {
  // Kernel size classes by forecast latency: class i holds forecasts below edge i (and at or
  // above edge i-1); the last class everything from the last edge up.
  std::vector<double> class_edges_ms;
  std::map<std::string, std::vector<ErrorBand>, std::less<>> kernel;  // family name -> per class
  std::map<std::string, ErrorBand, std::less<>> model;                // "training", "inference"
  std::string protocol_hash;  // the protocol run that fitted them

  bool empty() const { return kernel.empty() && model.empty(); }
  int size_class(double forecast_ms) const;
  // Null when there is no band for the family (or the mode).
  const ErrorBand* kernel_band(std::string_view family, double forecast_ms) const;
  // Training steps take the training band; inference, prefill and decode the inference one
  // (no prefill or decode label exists to fit their own).
  const ErrorBand* model_band(Mode mode) const;
};

// Throws tilecast::Error naming `origin` and the field.
ErrorBands parse_error_bands(std::string_view json_text, std::string_view origin);
std::string error_bands_to_json(const ErrorBands& bands, const std::string& command);
// core/data/error_bands.json; empty when not built in (forecasts then carry no band).
const ErrorBands& embedded_error_bands();
// The band a whole-model forecast, a static serve or a multi-GPU step of `mode` carries, in any
// precision (model_band_transferred): the embedded model band; null for the roofline predictor
// or a build without bands. The one place that decides it for the three.
const ErrorBand* forecast_model_band(Predictor predictor, Mode mode);

}  // namespace tilecast
