// The feed-forward sub-layer (dense or gated) and the residual tail shared by
// every sub-layer.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void mlp(GraphBuilder& g, const MlpSpec& s, std::int64_t rows) {
  const std::int64_t R = rows, H = s.hidden, F = s.inner;
  // Every projection of the sub-layer: the spec's bias, the MLP's LoRA site, its expert routing.
  const auto projection = [&s](TpSplit tp, bool shares_input = false) {
    return LinearOptions{.bias = s.bias,
                         .shares_input = shares_input,
                         .tp = tp,
                         .lora = LinearOptions::LoraSite::mlp,
                         .routed_expert = s.routed_expert};
  };
  if (s.fused_gate_up) {  // one GEMM, split into gate and up by views (no kernel)
    g.linear(s.names[0], R, H, 2 * F, projection(TpSplit::column));
    activation(g, s.act_name, s.act, R, F);
    g.vec("gate * up", Op::mul, R, F, OpKind::elementwise, 2);
  } else {
    g.linear(s.names[0], R, H, F, projection(TpSplit::column));
    if (s.gated) {
      g.linear(s.names[1], R, H, F, projection(TpSplit::none, true));
      activation(g, s.act_name, s.act, R, F);
      g.vec("gate * up", Op::mul, R, F, OpKind::elementwise, 2);
    } else {
      activation(g, s.act_name, s.act, R, F);
    }
  }
  g.dropout("mlp dropout", s.inner_dropout, R, F);
  g.linear(s.names[2], R, F, H, projection(TpSplit::row));
}

void residual(GraphBuilder& g, double dropout, std::int64_t rows, std::int64_t h) {
  g.dropout("dropout", dropout, rows, h);
  g.vec("residual add", Op::add, rows, h, OpKind::elementwise);
}

}  // namespace tilecast::detail
