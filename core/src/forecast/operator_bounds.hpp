// Per-operator bound analysis (as LLM-Viewer shows it): each operator of a forecast step (a
// section's module or function, by kernel op and phase) with its FLOPs, DRAM bytes, arithmetic
// intensity, the GPU's ridge point for the unit and data type it runs on, whether the roofline
// makes it compute- or memory-bound, and the time the step's replay charged it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

// The time the replay charged each op of the graph, summed over its section's repeats:
// [section][op], as forecast_graph_charged fills it.
using ChargedMs = std::vector<std::vector<double>>;

// forecast_graph, also writing each op's charged time (the one replay; model_forecast.cpp).
ModelForecast forecast_graph_charged(const GpuSpec& gpu, const OpGraph& graph, const Workload& w,
                                     Predictor predictor, ChargedMs& charged);

struct OperatorBound {
  std::string section;  // e.g. "decoder layer"
  std::string name;     // the module or function, e.g. "q_proj", "softmax"
  // the kernel op ("linear", "bmm", ...; a compiled chain its anchor's), "copy" for a
  // memory-bound copy, "fused" for a fused kernel outside the vocabulary
  std::string kernel;
  OpKind kind = OpKind::elementwise;
  Phase phase = Phase::forward;
  std::int64_t launches = 0;       // kernel launches, repeats counted
  double flops = 0;                // repeats counted
  double bytes = 0;                // minimal DRAM traffic, repeats counted
  double ridge_flop_per_byte = 0;  // peak FLOP/s over bandwidth, for its unit and data type
  double time_ms = 0;              // charged by the replay, repeats counted
  // the roofline's verdict: its FLOPs take at least as long at peak as its bytes at bandwidth
  bool compute_bound() const { return flops > 0 && flops >= ridge_flop_per_byte * bytes; }
};

// One row per (section, name, kernel op, phase), in graph order.
std::vector<OperatorBound> operator_bounds(const GpuSpec& gpu, const OpGraph& graph,
                                           const ChargedMs& charged);

// The response's `operators` array (model_forecast.schema.json): shares of `latency_ms`.
nlohmann::ordered_json operators_json(const std::vector<OperatorBound>& rows, double latency_ms);

}  // namespace tilecast::detail
