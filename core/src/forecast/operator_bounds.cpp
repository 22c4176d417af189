// Per-operator bound analysis: the graph's ops grouped by (section, name, kernel op, phase), each
// group's FLOPs and bytes as the replay forecast them (operator_bounds.hpp).
#include "forecast/operator_bounds.hpp"

#include <map>
#include <tuple>

#include "forecast/kernel_times.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast::detail {
namespace {

std::string_view phase_word(Phase p) {
  switch (p) {
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::accumulate: return "accumulate";
  }
  return "";
}

// An op's FLOPs and minimal DRAM bytes, as the replay forecasts it (KernelTimes::op): a fused
// kernel outside the vocabulary its own; a compiled chain its FLOPs and its anchor's bytes scaled
// by the chain's traffic; a memory-bound copy none and its `addu` stand-in's bytes.
struct Work {
  double flops = 0, bytes = 0, peak_gflops = 0;
};

Work op_work(const GpuSpec& gpu, const GraphOp& o) {
  if (o.fused_bytes > 0)
    return {o.fused_flops, o.fused_bytes, fused_peak_gflops(gpu, o.kernel.dtype)};
  const double bytes = kernel_bytes(o.kernel) * (o.fused_kernels > 0 ? o.traffic_scale : 1.0);
  return {op_flops(o), bytes, peak_gflops(gpu, o.kernel)};
}

}  // namespace

std::vector<OperatorBound> operator_bounds(const GpuSpec& gpu, const OpGraph& graph,
                                           const ChargedMs& charged) {
  std::vector<OperatorBound> rows;
  for (std::size_t si = 0; si < graph.sections.size(); ++si) {
    const GraphSection& s = graph.sections[si];
    std::map<std::tuple<std::string, std::string, Phase>, std::size_t> index;  // into rows
    for (std::size_t oi = 0; oi < s.ops.size(); ++oi) {
      const GraphOp& o = s.ops[oi];
      const std::string kernel = o.fused_bytes > 0    ? std::string("fused")
                                 : o.mem_elements > 0 ? std::string("copy")
                                                      : std::string(op_name(o.kernel.op));
      const auto key = std::make_tuple(o.name, kernel, o.phase);
      auto it = index.find(key);
      if (it == index.end()) {
        OperatorBound r;
        r.section = s.name;
        r.name = o.name;
        r.kernel = kernel;
        r.kind = o.kind;
        r.phase = o.phase;
        it = index.emplace(key, rows.size()).first;
        rows.push_back(std::move(r));
      }
      OperatorBound& r = rows[it->second];
      const Work work = op_work(gpu, o);
      const double n = double(s.count);
      r.launches += s.count;
      r.flops += n * work.flops;
      r.bytes += n * work.bytes;
      // the group's unit and data type are its kernel op's: one ridge (the first op's)
      if (r.ridge_flop_per_byte == 0) r.ridge_flop_per_byte = work.peak_gflops / gpu.mem_bw_gbps;
      if (si < charged.size() && oi < charged[si].size()) r.time_ms += charged[si][oi];
    }
  }
  return rows;
}

nlohmann::ordered_json operators_json(const std::vector<OperatorBound>& rows, double latency_ms) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const OperatorBound& r : rows) {
    nlohmann::ordered_json j;
    j["section"] = r.section;
    j["name"] = r.name;
    j["kernel"] = r.kernel;
    j["kind"] = std::string(op_kind_name(r.kind));
    j["phase"] = std::string(phase_word(r.phase));
    j["launches"] = r.launches;
    j["flops"] = r.flops;
    j["bytes"] = r.bytes;
    j["intensity_flop_per_byte"] = r.bytes > 0 ? r.flops / r.bytes : 0.0;
    j["ridge_flop_per_byte"] = r.ridge_flop_per_byte;
    j["bound"] = r.compute_bound() ? "compute" : "memory";
    j["time_ms"] = r.time_ms;
    j["share"] = latency_ms > 0 ? r.time_ms / latency_ms : 0.0;
    a.push_back(std::move(j));
  }
  return a;
}

}  // namespace tilecast::detail
