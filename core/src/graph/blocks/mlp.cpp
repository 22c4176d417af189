// The feed-forward sub-layer (dense or gated) and the residual tail shared by
// every sub-layer.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void mlp(GraphBuilder& g, const MlpSpec& s, std::int64_t rows) {
  const std::int64_t R = rows, H = s.hidden, F = s.inner;
  if (s.fused_gate_up) {  // one GEMM, split into gate and up by views (no kernel)
    g.linear(s.names[0], R, H, 2 * F,
             {.bias = s.bias,
              .tp = TpSplit::column,
              .lora = LinearOptions::LoraSite::mlp,
              .routed_expert = s.routed_expert});
    activation(g, s.act_name, s.act, R, F);
    g.vec("gate * up", Op::mul, R, F, OpKind::elementwise, 2);
    g.dropout("mlp dropout", s.inner_dropout, R, F);
    g.linear(s.names[2], R, F, H,
             {.bias = s.bias,
              .tp = TpSplit::row,
              .lora = LinearOptions::LoraSite::mlp,
              .routed_expert = s.routed_expert});
    return;
  }
  g.linear(s.names[0], R, H, F,
           {.bias = s.bias,
            .tp = TpSplit::column,
            .lora = LinearOptions::LoraSite::mlp,
            .routed_expert = s.routed_expert});
  if (s.gated) {
    g.linear(s.names[1], R, H, F,
             {.bias = s.bias,
              .shares_input = true,
              .lora = LinearOptions::LoraSite::mlp,
              .routed_expert = s.routed_expert});
    activation(g, s.act_name, s.act, R, F);
    g.vec("gate * up", Op::mul, R, F, OpKind::elementwise, 2);
  } else {
    activation(g, s.act_name, s.act, R, F);
  }
  g.dropout("mlp dropout", s.inner_dropout, R, F);
  g.linear(s.names[2], R, F, H,
           {.bias = s.bias,
            .tp = TpSplit::row,
            .lora = LinearOptions::LoraSite::mlp,
            .routed_expert = s.routed_expert});
}

void residual(GraphBuilder& g, double dropout, std::int64_t rows, std::int64_t h) {
  g.dropout("dropout", dropout, rows, h);
  g.vec("residual add", Op::add, rows, h, OpKind::elementwise);
}

}  // namespace tilecast::detail
