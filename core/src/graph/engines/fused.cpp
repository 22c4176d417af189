// An optimised serving engine's pass (vLLM / Sarathi / TensorRT-LLM style), for the
// decoder-only architectures: per layer one fused residual-add + norm, one QKV GEMM, one
// rotary kernel (Llama family), one KV-cache write, one fused attention kernel that reads
// Q and the K/V cache and writes the output without materialising the score matrix
// (FlashAttention / PagedAttention), the output projection, a second fused add + norm, the
// MLP GEMMs (gate and up as one GEMM) around one fused activation(-and-gate) kernel. The
// head computes the logits of each sequence's last position only.
//
// Kernels: the 2-byte types use the FP16/BF16 models' token-row kernels (rmsnorm, rotary,
// silu_mul, embedding: what vidur measured); FP32 has no model for those, so its fused
// kernels are the closest FP32 classes (ln, mul, gelu, a copy). The fused attention is
// outside the kernel vocabulary: it is forecast by the roofline of its FLOPs (QK^T and AV;
// causal prefill skips the masked half) and bytes (Q, K, V read once, output written).
#include <string>

#include "graph/builder.hpp"
#include "graph/engines/engines.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {
namespace {

bool half(DataType t) { return t == DataType::fp16 || t == DataType::bf16; }

// A fused one-row-per-token kernel: the token-row op at 2-byte types, else `fp32_op`.
void token_kernel(GraphBuilder& g, std::string_view name, std::string_view half_op, Op fp32_op,
                  std::int64_t rows, std::int64_t h, OpKind kind) {
  if (half(g.workload().dtype))
    g.vec_fw(name, parse_op(half_op), rows, h, kind);
  else
    g.vec_fw(name, fp32_op, rows, h, kind, std::string(half_op) + " (fused)");
}

}  // namespace

OpGraph build_fused_graph(const ModelConfig& m, const Workload& w) {
  if (w.mode != Mode::prefill && w.mode != Mode::decode)
    throw Error("the fused engine models serving: prefill or decode, not " +
                std::string(mode_name(w.mode)));
  // An encoder or a bad workload: build_op_graph throws the named error.
  if (m.architecture == Architecture::bert || m.architecture == Architecture::switch_transformers ||
      w.batch < 1 || w.query_len < 1 || w.context_len < w.query_len)
    (void)build_op_graph(m, w);

  OpGraph graph;
  GraphBuilder g(w, graph);
  const bool llama = m.architecture == Architecture::llama ||
                     m.architecture == Architecture::mistral ||
                     m.architecture == Architecture::qwen2;
  const std::int64_t B = w.batch, S = w.query_len, C = w.context_len, H = m.hidden_size,
                     hd = m.head_dim, F = m.intermediate_size;
  const std::int64_t T = GraphBuilder::mul(B, S);  // tokens this pass computes
  const std::int64_t Q = GraphBuilder::mul(m.num_heads, hd),
                     KV = GraphBuilder::mul(m.num_kv_heads, hd);
  const double bytes = dtype_bytes(w.dtype);
  const Op norm_fp32 = Op::ln;

  g.section("embeddings", 1);
  token_kernel(g, "embed_tokens", "embedding", Op::addu, T, H, OpKind::memory);

  g.section("decoder layer", m.num_layers);
  token_kernel(g, "add + norm", "rmsnorm", norm_fp32, T, H, OpKind::norm);
  g.linear("qkv_proj", T, H, Q + 2 * KV, {.bias = m.attention_bias});
  if (llama) token_kernel(g, "rotary", "rotary", Op::mul, T, Q + KV, OpKind::elementwise);
  g.mem("kv cache write", Phase::forward, 2.0 * 2.0 * double(T) * double(KV), hd, "kv cache write");
  {
    // Q K^T and P V for every head; a causal prefill computes half the square.
    const double pairs = double(B) * double(m.num_heads) * double(S) * double(C) *
                         (w.mode == Mode::prefill ? 0.5 : 1.0);
    const double flops = 2 * 2 * pairs * double(hd);
    const double moved =
        (2 * double(T) * double(Q) + 2 * double(B) * double(C) * double(KV)) * bytes;
    // shape stand-in: one BMM per K/V head group over the whole cache
    const std::int64_t groups = GraphBuilder::mul(B, m.num_kv_heads);
    const std::int64_t rows = GraphBuilder::mul(S, m.num_heads / m.num_kv_heads);
    g.bmm("fused attention", groups, rows, hd, C, false).fused(flops, moved);
  }
  g.linear("o_proj", T, Q, H, {.bias = m.attention_bias && m.architecture != Architecture::qwen2});
  token_kernel(g, "add + norm", "rmsnorm", norm_fp32, T, H, OpKind::norm);
  const bool gated = llama;
  g.linear(gated ? "gate_up_proj" : "fc1", T, H, gated ? 2 * F : F, {.bias = m.mlp_bias});
  if (gated)
    token_kernel(g, "silu_and_mul", "silu_mul", Op::gelu, T, F, OpKind::elementwise);
  else
    g.vec_fw("activation", Op::gelu, T, F, OpKind::elementwise);
  g.linear(gated ? "down_proj" : "fc2", T, F, H, {.bias = m.mlp_bias});

  g.section("head", 1);
  // the last layer's residual add + final norm, logits of the last position per sequence
  token_kernel(g, "add + norm", "rmsnorm", norm_fp32, B, H, OpKind::norm);
  g.linear("lm_head", B, H, m.vocab_size, {.tied = m.tie_word_embeddings});
  return graph;
}

}  // namespace tilecast::detail
