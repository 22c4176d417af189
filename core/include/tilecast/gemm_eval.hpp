// Published GEMM timings (data/published/gemm-kernels.json) against the kernel forecasts, row by
// row: what calibrates a transfer's measured time multiple (forecast/model_registry.hpp,
// ModelManifest::Transfer) and checks it stays current. Part of tilecast_eval (native only).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilecast {

struct GemmEvalRow {
  std::string id, source, gpu, precision;
  long long m = 0, n = 0, k = 0;
  double measured_us = 0;
  double forecast_us = 0;    // as tilecast forecasts it in an engine (no host launch cost)
  double time_multiple = 1;  // the transfer's, included in forecast_us (1: none)
  std::string model;  // the model and transfer that forecast it, e.g. "nvidia-half-gemm fp4 gemm"
};

// One (GPU vendor, precision) of the rows: the multiple they give (median of measured /
// forecast without the transfer's multiple, rounded to two decimals) and the errors.
struct GemmEvalGroup {
  std::string vendor, precision;
  int rows = 0;
  double time_multiple_in_use = 1;  // the embedded transfer's
  bool carried = false;  // whether that transfer carries a measured multiple (its calibration)
  double time_multiple_measured = 1;  // what these rows give
  double median_abs_error_pct_without = 0, median_abs_error_pct_with = 0;
};

struct GemmEvalReport {
  std::vector<GemmEvalRow> rows;
  std::vector<GemmEvalGroup> groups;
};

// `json_text`: the file's text ({"sources": {...}, "rows": [...]}); errors name `origin`, the
// row and the field.
GemmEvalReport evaluate_published_gemms(std::string_view json_text, std::string_view origin);
std::string gemm_eval_to_json(const GemmEvalReport& report);

}  // namespace tilecast
