// The accuracy report over measured kernels (count and MAPE per GPU and op, ours beside
// the roofline): rows in, report out.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"
#include "tilecast/kernel_csv.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast {

struct EvalGroup {
  std::string gpu;
  std::string op;
  std::int64_t n = 0;
  double mape_pct = 0;
  double roofline_mape_pct = 0;
};

struct EvalReport {
  std::vector<EvalGroup> groups;  // sorted by GPU, then op in Op order
  std::int64_t n = 0;
  double overall_mape_pct = 0;
  double overall_roofline_mape_pct = 0;
  // The forecasts' 80% bands (tilecast/error_bands.hpp): rows whose forecast carries one, how
  // many of them are inside it, and its mean width in % of the forecast.
  std::int64_t banded = 0;
  std::int64_t inside_band = 0;
  double mean_band_width_pct = 0;
};

// `devices` maps the CSV Device name to its spec; a row whose Device is missing
// throws an Error naming the row's origin and the known devices.
EvalReport evaluate_kernels(const std::vector<MeasuredKernel>& rows,
                            const std::map<std::string, GpuSpec>& devices,
                            Predictor predictor = Predictor::tilecast);

// {"groups":[{"gpu","op","n","mape_pct","roofline_mape_pct"}],"overall_mape_pct":..,
//  "band": {"n","inside_pct","mean_width_pct"} or null when no forecast carries one}
std::string eval_report_to_json(const EvalReport& report);
// One CSV line per row: origin, gpu, op, dims, measured, predicted and roofline ms.
std::string eval_rows_csv(const std::vector<MeasuredKernel>& rows,
                          const std::map<std::string, GpuSpec>& devices, Predictor predictor);
// A fixed-width table for people.
std::string eval_report_to_text(const EvalReport& report, Predictor predictor);

}  // namespace tilecast
