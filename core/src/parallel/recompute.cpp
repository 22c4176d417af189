// Activation recomputation (Korthikanti et al. 2022, "Reducing Activation Recomputation in
// Large Transformer Models"): `full` keeps only each layer's input and re-runs the layer's
// forward before its backward; `selective` keeps everything but the core attention (from the
// q·k^T product to the probabilities·v product: scores, mask, softmax, dropout), which it
// re-runs: the large (seq x seq per head) tensors for little compute. Layers only; the
// embeddings and the head are never recomputed.
#include "parallel/parallel.hpp"

namespace tilecast::detail {
namespace {

// Elements of a BMM(b, m, n, k)'s second operand (n x k per batch): the values of attn·v.
double second_operand(const Kernel& k) {
  return double(k.dims[0]) * double(k.dims[2]) * double(k.dims[3]);
}

constexpr double kFp32 = 4;  // a layer's input: the residual stream, FP32 also under autocast

}  // namespace

RecomputePlan apply_recompute(OpGraph& stage, Recompute mode) {
  RecomputePlan plan;
  for (auto& s : stage.sections) {
    std::vector<char> rerun(s.ops.size(), 0);
    if (mode != Recompute::none && is_layer_section(s)) {
      if (mode == Recompute::full) {
        // keep the layer's input: the first linear's (or norm's) input, one rows x hidden
        double input = 0;
        for (std::size_t i = 0; i < s.ops.size(); ++i) {
          GraphOp& o = s.ops[i];
          if (o.phase != Phase::forward) continue;
          rerun[i] = 1;
          if (input == 0 && (o.kind == OpKind::norm || o.kind == OpKind::gemm))
            input = o.kind == OpKind::gemm ? double(o.kernel.dims[1]) * double(o.kernel.dims[2])
                                           : double(o.kernel.dims[0]) * double(o.kernel.dims[1]);
          o.saved_bytes = 0;
        }
        for (auto& o : s.ops)
          if (o.phase == Phase::forward) {
            o.saved_bytes = input * kFp32;
            break;
          }
      } else {
        bool inside = false;
        for (std::size_t i = 0; i < s.ops.size(); ++i) {
          GraphOp& o = s.ops[i];
          if (o.phase != Phase::forward) continue;
          const bool bmm = o.kind == OpKind::attention_bmm;
          if (bmm && !inside) {  // q·k^T: keeps q and k (the projections' outputs)
            inside = true;
            rerun[i] = 1;
            continue;
          }
          if (!inside) continue;
          rerun[i] = 1;
          if (bmm) {  // probabilities·v: keeps v only
            o.saved_bytes =
                o.saved_bytes > 0 ? second_operand(o.kernel) * dtype_bytes(o.kernel.dtype) : 0;
            inside = false;
          } else {
            o.saved_bytes = 0;
          }
        }
      }
    }
    plan.rerun.push_back(std::move(rerun));
  }
  return plan;
}

}  // namespace tilecast::detail
