// Phi-3 (Phi3ForCausalLM, eager attention): Llama's layer with one fused qkv_proj GEMM (split
// into q, k, v by views) and one fused gate_up_proj GEMM (split into gate and up), residual
// dropouts (resid_pdrop; 0 in the released configs) and an untied LM head.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_phi3(const ModelConfig& m, GraphBuilder& g) {
  AttentionSpec attn = rotary_attention(m);  // one qkv_proj: the row's fused_qkv
  attn.out_dropout = m.hidden_dropout;
  MlpSpec mlp_spec = gated_mlp(m, m.intermediate_size);  // one gate_up_proj: fused_gate_up
  mlp_spec.act_name = "activation_fn";
  rotary_decoder(g, m, attn, mlp_spec);
}

}  // namespace tilecast::detail
