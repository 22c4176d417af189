// Phi-3 (Phi3ForCausalLM, eager attention): Llama's layer with one fused qkv_proj GEMM (split
// into q, k, v by views) and one fused gate_up_proj GEMM (split into gate and up), residual
// dropouts (resid_pdrop; 0 in the released configs) and an untied LM head.
#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void build_phi3(const ModelConfig& m, GraphBuilder& g) {
  const std::int64_t H = m.hidden_size, hd = m.head_dim;

  AttentionSpec attn{.hidden = H, .heads = m.num_heads, .kv_heads = m.num_kv_heads, .head_dim = hd};
  attn.names = {"qkv_proj", "", "", "o_proj"};
  attn.fused_qkv = true;
  attn.qkv_bias = attn.out_bias = m.attention_bias;
  attn.rotary = true;
  attn.dropout = m.attention_dropout;
  attn.out_dropout = m.hidden_dropout;
  attn.out_copy_width = hd;
  const MlpSpec mlp_spec{.hidden = H,
                         .inner = m.intermediate_size,
                         .names = {"gate_up_proj", "", "down_proj"},
                         .gated = true,
                         .fused_gate_up = true,
                         .bias = m.mlp_bias,
                         .act = m.activation,
                         .act_name = "activation_fn"};

  rotary_decoder(g, m, attn, mlp_spec);
}

}  // namespace tilecast::detail
