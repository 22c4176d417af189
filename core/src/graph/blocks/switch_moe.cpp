// The Switch Transformers sparse MLP (top-1 router, then a Python loop over the experts) as
// Hugging Face's eager modules run it, in the two releases that differ (ModelConfig::
// transformers_major; docs/model-forecast.md, "Switch Transformer"):
//  * transformers 4 routes per sequence: a token past its expert's capacity (cumulative count
//    over the sequence) is dropped, each expert runs on its capacity-sized buffer, gathered and
//    scattered back with boolean masks, and the output is scaled by the router probability;
//  * transformers 5 flattens the tokens before the router, so the capacity's cumulative count
//    runs over a length-1 axis and binds nothing: every token reaches its expert (uniform
//    routing assumed: routed_experts, the tokens shared evenly among the experts hit), gathered by
//    index, scaled by its routing weight and index_add-ed into a zero buffer.
// transformers 5's loop reads values on the host: the experts hit (nonzero) and, per expert,
// torch.where's count and an .item(). Each is a device-to-host copy the host waits for
// (GraphBuilder::host_sync): the GPU drains, and the kernels after it run as fast as the host
// can launch them. Element counts are 4-byte units (int64 2, bool 1/4).
#include <algorithm>
#include <cmath>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {
namespace switch_moe_detail {  // a named namespace: the unity build joins the block files

constexpr double kInt64 = kIndexBytes / kFloatBytes;  // an int64 in 4-byte elements
constexpr double kBool = kMaskBytes / kFloatBytes;    // a bool in 4-byte elements

MlpSpec expert_mlp(const SwitchMoeSpec& s) {
  MlpSpec m{.hidden = s.hidden,
            .inner = s.expert_inner,
            .names = {"expert wi", "", "expert wo"},
            .act = s.act};
  m.act_name = "expert act";
  m.inner_dropout = s.dropout;
  return m;
}

// transformers 4 (SwitchTransformersTop1Router and SparseMLP of the 4.x releases), as tilecast
// has listed it since the NeuSight comparison: its host synchronisations (the experts hit, then
// per expert a nonzero before the gather and one before the scatter) are not listed, because
// the expert loop runs only over the experts that received tokens and NeuSight's inputs (token
// ids all ones) send every token to one expert at inference (docs/model-forecast.md).
void sparse_mlp_4(GraphBuilder& g, const SwitchMoeSpec& s, std::int64_t R) {
  const std::int64_t H = s.hidden, E = s.experts;
  const double RE = double(R) * double(E), RH = double(R) * double(H);
  const double cap = double(s.capacity_rows) * double(H);
  if (g.training()) g.vec("router jitter", Op::mul, R, H, OpKind::elementwise, 1);
  g.linear("router classifier", R, H, E, {});
  g.vec("router softmax", Op::softmax, R, E, OpKind::softmax);
  g.mem("router cumsum", Phase::forward, 2.0 * RE, E, "cumsum");
  g.vec_fw("capacity mask", Op::mul, R, E, OpKind::elementwise);
  for (std::int64_t e = 0; e < E; ++e) {
    g.mem("expert mask", Phase::forward, RE + double(R), E, "boolean mask select");
    g.mem("expert gather", Phase::forward, RH + double(R) + cap, H, "boolean-mask gather")
        .saves(double(R) * kMaskBytes);
    if (g.training()) {
      g.mem("expert gather", Phase::backward, RH + double(R), H, "boolean-mask gather backward");
      g.mem("expert gather", Phase::backward, RH + double(R), H, "boolean-mask gather backward");
    }
    mlp(g, expert_mlp(s), s.capacity_rows);
    g.mem("expert scatter", Phase::forward, RH + double(R) + cap + 1, H, "boolean-mask scatter")
        .saves(double(R) * kMaskBytes);
    if (g.training()) {
      g.mem("expert scatter", Phase::backward, RH + double(R) + cap, H,
            "boolean-mask scatter backward");
      g.mem("expert scatter", Phase::backward, RH + double(R) + cap, H,
            "boolean-mask scatter backward");
    }
  }
  g.vec("router prob scale", Op::mul, R, H, OpKind::elementwise, 2);
}

// transformers 5 (SwitchTransformersTop1Router, SwitchTransformersExperts: the 5.x releases).
void sparse_mlp_5(GraphBuilder& g, const SwitchMoeSpec& s, std::int64_t R) {
  const std::int64_t H = s.hidden, E = s.experts;
  const double RE = double(R) * double(E), RH = double(R) * double(H), dR = double(R);
  // the router in FP32 (training: its input times a uniform jitter in place), softmax
  if (g.training()) {
    g.mem("router jitter", Phase::forward, RH, H, "uniform_");
    g.vec("router jitter", Op::mul, R, H, OpKind::elementwise, 1);
  }
  g.linear("router classifier", R, H, E, {});
  g.vec("router softmax", Op::softmax, R, E, OpKind::softmax);
  // torch.max over the probabilities (values: the routing weights; indices), one_hot (zeros,
  // scatter), cumsum over the length-1 axis, <= capacity, times the mask; the second
  // torch.max whose values the sparse MLP discards
  g.mem("router max", Phase::forward, RE + dR + dR * kInt64, E, "max");
  if (g.training())
    g.mem("router max", Phase::backward, RE + dR + dR * kInt64, E, "max backward (scatter)");
  g.mem("one_hot", Phase::forward, RE * kInt64, E, "zeros");
  g.mem("one_hot", Phase::forward, 2 * dR * kInt64, E, "scatter");
  g.mem("router cumsum", Phase::forward, 2 * RE * kInt64, E, "cumsum");
  g.mem("capacity mask", Phase::forward, RE * (kInt64 + kBool), E, "le");
  g.mem("capacity mask", Phase::forward, RE * (2 * kInt64 + kBool), E, "mul");
  g.mem("router probs", Phase::forward, RE + dR + dR * kInt64, E, "max");
  // the experts: a zero output, the experts hit (sum, greater, nonzero)
  g.mem("zeros (output)", Phase::forward, RH, H, "zeros");
  g.mem("experts hit", Phase::forward, RE * kInt64 + double(E) * kInt64, E, "sum");
  g.mem("experts hit", Phase::forward, double(E) * (kInt64 + kBool), E, "gt");
  nonzero(g, "experts hit", double(E) * kBool, E, double(E), 1);
  // the experts the tokens hit (each token's one expert drawn uniformly), the tokens shared
  // among them as evenly as whole tokens allow (routed_experts)
  const RoutedExperts routed = routed_experts({.experts = E, .top_k = 1}, R);
  for (std::int64_t e = 0; e < routed.active; ++e) {
    const std::int64_t n = routed.rows(e);
    const double nH = double(n) * double(H), dn = double(n);
    // expert_mask[expert_idx]: the expert's row of the permuted mask; torch.where over it
    g.mem("expert mask", Phase::forward, 2 * dR * kInt64 + kInt64, R, "index");
    nonzero(g, "expert where", dR * kInt64, R, dn, 2);
    // hidden_states[None, top_x]: the expert's tokens gathered by index
    // (backward ops are listed in reverse: the replay runs them from the end)
    g.mem("expert gather", Phase::forward, 2 * nH + dn * kInt64, H, "index")
        .saves(dn * kIndexBytes);
    if (g.training()) {  // index backward: a zero gradient, index_put (accumulate), the sum
      g.vec_bw("expert input gradient sum", Op::add, R, H, OpKind::elementwise);
      g.mem("expert gather", Phase::backward, 2 * nH + dn * kInt64, H, "index_put");
      g.mem("expert gather", Phase::backward, RH, H, "zeros");
    }
    // self[f"expert_{expert_idx[0]}"]: formatting a 0-d CUDA tensor calls .item()
    g.host_sync("expert index (item)");
    mlp(g, expert_mlp(s), n);
    expert_combine(g, n, H, dR).saves(2 * dn * kIndexBytes);
  }
}

}  // namespace switch_moe_detail

void switch_sparse_mlp(GraphBuilder& g, const SwitchMoeSpec& s, std::int64_t rows) {
  if (s.transformers_major >= 5)
    switch_moe_detail::sparse_mlp_5(g, s, rows);
  else
    switch_moe_detail::sparse_mlp_4(g, s, rows);
}

}  // namespace tilecast::detail
