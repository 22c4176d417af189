// Measured kernels in the NeuSight CSV format and the accuracy report over them
// (count and MAPE per GPU and op, ours beside the roofline): text in, report out.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast {

struct MeasuredKernel {
  std::string device;  // the CSV's Device, e.g. "Tesla T4"
  Kernel kernel;
  double latency_ms = 0;
  std::string kernel_name;  // the CUDA kernel launched ("" when the CSV has none)
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::string origin;  // "file:line", for error messages
};

// Parses a kernel CSV (header row first). Rows of ops tilecast does not model
// (conv) are skipped. Throws tilecast::Error naming `origin`, the line and the field.
std::vector<MeasuredKernel> parse_kernel_csv(std::string_view csv_text, std::string_view origin);

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
};

// `devices` maps the CSV Device name to its spec; a row whose Device is missing
// throws an Error naming the row's origin and the known devices.
EvalReport evaluate_kernels(const std::vector<MeasuredKernel>& rows,
                            const std::map<std::string, GpuSpec>& devices,
                            Predictor predictor = Predictor::tilecast);

// {"groups":[{"gpu","op","n","mape_pct","roofline_mape_pct"}],"overall_mape_pct":..}
std::string eval_report_to_json(const EvalReport& report);
// One CSV line per row: origin, gpu, op, dims, measured, predicted and roofline ms.
std::string eval_rows_csv(const std::vector<MeasuredKernel>& rows,
                          const std::map<std::string, GpuSpec>& devices, Predictor predictor);
// A fixed-width table for people.
std::string eval_report_to_text(const EvalReport& report, Predictor predictor);

}  // namespace tilecast
