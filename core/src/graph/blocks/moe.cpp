// The sparse mixture-of-experts feed-forward as Hugging Face's eager Mixtral and Qwen2-MoE
// blocks run it. Routing is assumed balanced: the rows x top_k token-expert assignments spread
// evenly over the experts (a real router is uneven; the slowest expert then sets the pace in a
// fused kernel, and eager time grows with the busiest experts' GEMMs). docs/models.md.
#include <algorithm>
#include <cmath>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

std::int64_t active_experts(const MoeSpec& s, std::int64_t rows) {
  const double assignments = double(rows) * double(s.top_k);
  return std::max<std::int64_t>(1, std::int64_t(std::min(double(s.experts), assignments)));
}

std::int64_t routed_rows(const MoeSpec& s, std::int64_t rows) {
  const double assignments = double(rows) * double(s.top_k);
  return GraphBuilder::mul(std::ceil(assignments / double(active_experts(s, rows))), 1);
}

void moe(GraphBuilder& g, const MoeSpec& s, std::int64_t rows) {
  const std::int64_t R = rows, H = s.hidden, E = s.experts, k = s.top_k;
  const double RE = double(R) * double(E), Rk = double(R) * double(k), RH = double(R) * double(H);
  // router: logits, softmax in FP32, top-k (values and indices), optional renormalisation
  // experts that receive no tokens launch nothing; their weights are resident all the same and
  // are listed on the router's op (so the parameter count never depends on the workload)
  const std::int64_t n = active_experts(s, R), rows_e = routed_rows(s, R);
  const double idle = double(E - n) * 3.0 * double(H) * double(s.expert_inner);
  g.linear("gate (router)", R, H, E, {}).holds(double(H) * double(E) + idle);
  g.vec("router softmax", Op::softmax, R, E, OpKind::softmax);
  g.mem("router topk", Phase::forward, RE + 2 * Rk, E, "topk");
  if (g.training()) g.mem("router topk", Phase::backward, RE + Rk, E, "topk backward (scatter)");
  if (s.norm_topk) {
    g.mem("topk sum", Phase::forward, Rk + double(R), k, "sum");
    g.vec("topk renormalise", Op::div, R, k, OpKind::elementwise, 2);
  }
  // the output buffer and the one-hot expert mask (permuted to experts x k x rows)
  g.mem("zeros (output)", Phase::forward, RH, H, "zeros");
  g.mem("one_hot expert mask", Phase::forward, Rk + Rk * double(E), E, "one_hot");
  g.mem("expert mask permute", Phase::forward, 2 * Rk * double(E), E, "contiguous");

  const double eh = double(rows_e) * double(H);
  const MlpSpec expert{.hidden = H,
                       .inner = s.expert_inner,
                       .names = {"expert gate_proj", "expert up_proj", "expert down_proj"},
                       .gated = true,
                       .act = s.act,
                       .act_name = "expert act"};
  for (std::int64_t e = 0; e < n; ++e) {
    // torch.where over the expert's k x rows mask: the token indices
    g.mem("expert where", Phase::forward, Rk + 2.0 * double(rows_e), k, "nonzero");
    g.mem("expert gather", Phase::forward, 2 * eh + double(rows_e), H, "index gather");
    if (g.training()) g.mem("expert gather", Phase::backward, 2 * eh + RH, H, "index backward");
    mlp(g, expert, rows_e);
    g.vec("routing weight scale", Op::mul, rows_e, H, OpKind::elementwise, 2);
    g.mem("expert index_add", Phase::forward, 2 * eh + RH + double(rows_e), H, "index_add");
    if (g.training())
      g.mem("expert index_add", Phase::backward, 2 * eh + double(rows_e), H,
            "index_add backward (gather)");
  }
  if (s.shared_inner > 0) {  // Qwen2-MoE: sigmoid(shared_expert_gate(x)) * shared_expert(x)
    const MlpSpec shared{.hidden = H,
                         .inner = s.shared_inner,
                         .names = {"shared gate_proj", "shared up_proj", "shared down_proj"},
                         .gated = true,
                         .act = s.act,
                         .act_name = "shared act"};
    mlp(g, shared, R);
    g.linear("shared_expert_gate", R, H, 1, {.shares_input = true});
    g.vec("shared gate sigmoid", Op::gelu, R, 1, OpKind::elementwise, 1, "sigmoid");
    g.vec("shared gate scale", Op::mul, R, H, OpKind::elementwise, 2);
    g.vec("shared + routed", Op::add, R, H, OpKind::elementwise);
  }
}

}  // namespace tilecast::detail
