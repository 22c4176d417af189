// Collective forecasts against measured NCCL timings (Vidur's network/<node>/*.csv), and the
// calibration fit of the efficiency curves on them. Part of tilecast_eval (native only).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilecast/comm.hpp"

namespace tilecast {

struct CommRow {
  std::string node;  // Vidur's node name, e.g. "a100_dgx"
  Collective collective = Collective::kAllReduce;
  int gpus = 2;
  int gpus_per_node = 2;
  double bytes = 0;
  double measured_ms = 0;
  bool held_out = false;  // never fitted on: every other distinct size (mark_held_out_sizes)
};

// One CSV: columns time_stats.<op>.median (ms), num_workers, size (bytes), devices_per_node,
// collective. Errors name `origin`, the line and the column.
std::vector<CommRow> parse_vidur_comm_csv(std::string_view csv_text, std::string_view node,
                                          std::string_view origin);

// Within each (node, collective, gpus, gpus_per_node) group, sorts the distinct sizes and
// marks the odd-ranked ones held out, so the fit sees half the sizes and the report checks
// the other half.
void mark_held_out_sizes(std::vector<CommRow>& rows);

struct CommGroup {
  std::string node, system, collective, link;
  int gpus = 0, gpus_per_node = 0, nodes = 1;
  bool modelled = true;    // false: no system, or a multi-node row on a system without network
  bool calibrated = true;  // the curve was fitted for this link class and family
  std::string note;
  int n = 0;
  double median_abs_error_pct = 0;
  int n_ge_1mib = 0;
  double median_abs_error_pct_ge_1mib = 0;
  int n_ge_1mib_held_out = 0;
  double median_abs_error_pct_ge_1mib_held_out = 0;
  int n_le_64kib = 0;  // the smallest messages (a decode step's all-reduce), every size
  double median_abs_error_pct_le_64kib = 0;
};

struct CommReport {
  std::vector<CommGroup> groups;  // sorted by node, collective, nodes, gpus
};

// Node names map to systems through the system catalog (ids and aliases).
CommReport evaluate_comm(const std::vector<CommRow>& rows, const CommCalibration& calibration);
// {"groups":[{"system","node","collective","gpus","gpus_per_node","nodes","link","modelled",
//  "calibrated","n","median_abs_error_pct","n_ge_1mib","median_abs_error_pct_ge_1mib",
//  "n_ge_1mib_held_out","median_abs_error_pct_ge_1mib_held_out","n_le_64kib",
//  "median_abs_error_pct_le_64kib","note"}]}
std::string comm_report_to_json(const CommReport& report);

struct CommFitOptions {
  std::vector<std::string> nodes;  // nodes to fit on; empty: all
  std::vector<int> gpus;           // GPU counts to fit on; empty: all
  bool include_held_out = false;   // fit on every size, not just the non-held-out half
};

// Least squares on log time, per (link class, family) that has rows: Nelder-Mead over
// (log alpha, log e_max, log s_half) from fixed starts, so the result is deterministic.
CommCalibration fit_comm_calibration(const std::vector<CommRow>& rows,
                                     const CommFitOptions& options);

}  // namespace tilecast
