// torch.compile (Inductor) as a graph pass over the eager graph: within a section, every
// maximal run of consecutive non-GEMM kernels of one phase (element-wise, norm, softmax,
// copies; forward in launch order, backward in its replay order) becomes one generated kernel.
// Its intermediates stay in registers, so it moves only the run's external inputs and its
// output: the sum of the members' bytes less each intermediate's write and read. GEMMs and
// batched matmuls stay library kernels and break runs; gradient accumulation into .grad
// happens outside the compiled graph and breaks them too.
//
// The fused kernel is forecast as its anchor (the member moving the most bytes: the learned
// model's achieved bandwidth at that size) scaled by the chain's traffic over the anchor's,
// since such kernels are memory-bound. The graph holds no data-flow edges: a member's second
// operand is counted as an external input even where Inductor reads it from inside the chain
// (GELU's x used three times), so traffic errs high. docs/fusion.md.
#include <algorithm>
#include <string>
#include <vector>

#include "graph/engines/engines.hpp"

namespace tilecast::detail {
namespace {

bool fusible(const GraphOp& op) {
  // a host synchronisation is a graph break: Inductor fuses nothing across it
  return op.kind != OpKind::gemm && op.kind != OpKind::attention_bmm &&
         op.phase != Phase::accumulate && op.fused_bytes == 0 && !op.host_sync;
}

// The elements a member writes (a copy's stand-in kernel lists half its elements: its output).
double compiled_output_elements(const GraphOp& op) { return kernel_elements(op.kernel); }

GraphOp fuse(const std::vector<const GraphOp*>& chain) {
  if (chain.size() == 1) return *chain.front();
  std::size_t anchor = 0;
  double bytes = 0, flops = 0, params = 0, saved = 0, widest = 0;
  std::string name;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const GraphOp& o = *chain[i];
    const double b = kernel_bytes(o.kernel);
    if (b > kernel_bytes(chain[anchor]->kernel)) anchor = i;
    bytes += b;
    widest = std::max(widest, compiled_output_elements(o) * dtype_bytes(o.kernel.dtype));
    flops += op_flops(o);
    params += o.param_elements;
    saved += o.saved_bytes;
    if (!name.empty()) name += "+";
    name += o.name;
    if (i + 1 < chain.size()) {  // the intermediate handed to the next member
      const double kept =
          std::min(compiled_output_elements(o), compiled_output_elements(*chain[i + 1]));
      bytes -= 2 * kept * dtype_bytes(o.kernel.dtype);
    }
  }
  GraphOp f = *chain[anchor];
  const double anchor_bytes = kernel_bytes(f.kernel);
  bytes = std::max(bytes, 2 * widest);  // at least its widest tensor read once and written once
  f.name = name;
  f.fused_kernels = int(chain.size());
  f.chain_flops = flops;
  f.traffic_scale = anchor_bytes > 0 ? bytes / anchor_bytes : 1;
  f.param_elements = params;
  f.saved_bytes = saved;
  return f;
}

// Fuses the ops of `order` (indices into ops, in replay order) into `out`, in that order.
void fuse_runs(const std::vector<GraphOp>& ops, const std::vector<std::size_t>& order,
               std::vector<GraphOp>& out) {
  std::vector<const GraphOp*> run;
  auto flush = [&] {
    if (!run.empty()) out.push_back(fuse(run));
    run.clear();
  };
  for (std::size_t i : order) {
    const GraphOp& o = ops[i];
    if (!fusible(o)) {
      flush();
      out.push_back(o);
      continue;
    }
    if (!run.empty() && run.back()->phase != o.phase) flush();
    run.push_back(&o);
  }
  flush();
}

}  // namespace

OpGraph fuse_vector_chains(const OpGraph& eager) {
  OpGraph graph;
  for (const auto& s : eager.sections) {
    GraphSection fused;
    fused.name = s.name;
    fused.count = s.count;
    std::vector<std::size_t> forward, backward;  // backward: in replay (reverse) order
    for (std::size_t i = 0; i < s.ops.size(); ++i)
      if (s.ops[i].phase == Phase::forward) forward.push_back(i);
    for (std::size_t i = s.ops.size(); i-- > 0;)
      if (s.ops[i].phase != Phase::forward) backward.push_back(i);
    fuse_runs(s.ops, forward, fused.ops);
    std::vector<GraphOp> back;
    fuse_runs(s.ops, backward, back);
    // The replay walks backward ops from the end of the list: store them reversed again.
    fused.ops.insert(fused.ops.end(), back.rbegin(), back.rend());
    graph.sections.push_back(std::move(fused));
  }
  return graph;
}

}  // namespace tilecast::detail
