// The megatron engine against published large-model training runs (docs/megatron.md,
// "Accuracy"): Korthikanti et al. 2022's per-layer times (Table 4), iteration times and MFU
// (Table 5, section 6.3, appendix C), each row forecast as the paper ran it. Part of
// tilecast_eval (native only).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilecast/kernel_forecast.hpp"

namespace tilecast {

struct PublishedRow {
  std::string table, model, recompute, schedule;
  int gpus = 0, tp = 1, pp = 1, dp = 1, virtual_stages = 1, microbatches = 1;
  bool sequence_parallel = false, overlap_grad_reduce = true;
  // measured (< 0: not published) and forecast
  double layer_forward_ms = -1, layer_backward_ms = -1, iteration_s = -1, mfu_pct = -1;
  double f_layer_forward_ms = 0, f_layer_backward_ms = 0, f_iteration_s = 0, f_mfu_pct = 0;
  double f_hfu_pct = 0, memory_gb = 0, capacity_gb = 0;
  bool fits = false;
  bool layer_benchmark = false;  // Table 4: one layer timed, the whole model never run
};

struct PublishedReport {
  std::vector<PublishedRow> rows;
  // the targets (docs/megatron.md): Table 4 within 10 % each, Table 5 within 10 % each and MAE
  // <= 6 %, MFU within 3 points, every configuration that ran the whole model fits
  double table4_max_abs_error_pct = 0;
  double table5_max_abs_error_pct = 0, table5_mae_pct = 0;
  int table5_rows = 0;
  double mfu_max_abs_error_points = 0;
  int mfu_rows = 0;
  bool all_fit = true;
  std::string assumptions;
};

// `json_text`: the published file (an array of rows as ../shared/data/published/
// korthikanti-2022.json holds them). Throws Error naming `origin`, the row and the field.
PublishedReport evaluate_published(std::string_view json_text, std::string_view origin,
                                   Predictor predictor = Predictor::tilecast);
std::string published_report_to_json(const PublishedReport& report);

}  // namespace tilecast
