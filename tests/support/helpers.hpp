// Shared test helpers: the message of the tilecast::Error a call throws (what the tests of
// refused inputs compare), caveats that mention words, workloads, graphs without their host
// synchronisations.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tilecast/error.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::test {

// The message of the tilecast::Error `f` throws, or "" when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Why a model config text is refused ("" when it parses).
inline std::string config_error(const std::string& text) {
  return error_of([&] { (void)parse_model_config(text, "config.json"); });
}

// Why a model cannot be built into an operator graph for a workload ("" when it can).
inline std::string graph_error(const ModelConfig& m, const Workload& w) {
  return error_of([&] { (void)build_op_graph(m, w); });
}

// The graph's section of that name (e.g. "decoder layer (experts)"); throws when there is none.
inline const GraphSection& section_named(const OpGraph& g, const std::string& name) {
  for (const auto& s : g.sections)
    if (s.name == name) return s;
  throw std::out_of_range("the graph has no section '" + name + "'");
}

// How many ops of that name a pass runs (each op times its section's count).
inline std::int64_t count_ops(const OpGraph& g, const std::string& name) {
  std::int64_t n = 0;
  for (const auto& s : g.sections)
    for (const auto& o : s.ops)
      if (o.name == name) n += s.count;
  return n;
}

// Whether any of `lines` (a forecast's caveats, a plan's notes) contains `words`.
inline bool mentions(const std::vector<std::string>& lines, const std::string& words) {
  for (const auto& l : lines)
    if (l.find(words) != std::string::npos) return true;
  return false;
}

// A training workload of `batch` sequences of `seq` tokens in precision `t`.
inline Workload training(std::int64_t batch, std::int64_t seq, DataType t = DataType::fp32) {
  Workload w = make_workload(Mode::training, batch, seq);
  w.dtype = t;
  return w;
}

// The graph with its host synchronisations (GraphOp::host_sync) turned into plain copies, and
// into `syncs` how many a pass makes (each op times its section's count).
inline OpGraph without_host_syncs(OpGraph g, int& syncs) {
  syncs = 0;
  for (auto& s : g.sections)
    for (auto& o : s.ops) {
      syncs += o.host_sync ? int(s.count) : 0;
      o.host_sync = false;
    }
  return g;
}

}  // namespace tilecast::test
