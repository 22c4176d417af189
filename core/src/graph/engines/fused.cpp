// An optimised serving engine's pass (vLLM / Sarathi / TensorRT-LLM style), for the
// decoder-only architectures: per layer one fused residual-add + norm, one QKV GEMM, one
// rotary kernel (Llama family), one KV-cache write, one fused attention kernel that reads
// Q and the K/V cache and writes the output without materialising the score matrix
// (FlashAttention / PagedAttention), the output projection, a second fused add + norm, the
// MLP GEMMs (gate and up as one GEMM) around one fused activation(-and-gate) kernel. The
// head computes the logits of each sequence's last position only. A parallel block (GPT-J,
// Falcon) has one add + norm feeding both attention and the MLP (Falcon's new decoder: a second
// norm for the MLP), and one add of their outputs.
//
// Kernels: the 2-byte types use the FP16/BF16 models' token-row kernels (rmsnorm, rotary,
// silu_mul, embedding: what vidur measured); FP32 has no model for those, so its fused
// kernels are the closest FP32 classes (ln, mul, gelu, a copy). The fused attention is
// outside the kernel vocabulary: it is forecast from its FLOPs (QK^T and AV; causal prefill
// skips the masked half), bytes (Q, K, V read once, output written) and keys per query
// (forecast/kernel_times.hpp, FusedAttention).
#include <algorithm>
#include <string>
#include <vector>

#include "common/checked.hpp"
#include "graph/blocks/blocks.hpp"
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

// The pairs `queries` new queries compute in chunked local attention of `chunk` tokens after
// `cached` keys (Llama 4; vLLM's local attention): a query reads its own chunk's keys up to itself,
// so each chunk's run of n queries after o of its keys computes n x o + n^2 / 2 (the causal half,
// as a whole prefill's).
double chunked_pairs(std::int64_t cached, std::int64_t queries, std::int64_t chunk) {
  const std::int64_t into = cached % chunk, first = std::min(queries, chunk - into);
  const std::int64_t full = (queries - first) / chunk, last = queries - first - full * chunk;
  const double c = double(chunk);
  return double(first) * double(into) + double(first) * double(first) / 2 +
         double(full) * c * c / 2 + double(last) * double(last) / 2;
}

// The query-key pairs a pass's attention computes over `heads` heads: every query's keys in a
// decode; half the square in a causal prefill, the window's band in a sliding one longer than it,
// each chunk's half square in a chunked one (`chunk` > 0).
double attended_pairs(const Workload& w, std::int64_t heads, std::int64_t keys, bool sliding,
                      std::int64_t chunk = 0) {
  const double pairs = double(w.batch) * double(heads) * double(w.query_len) * double(keys);
  if (w.mode != Mode::prefill) return pairs;
  if (chunk > 0)
    return double(w.batch) * double(heads) *
           chunked_pairs(w.context_len - w.query_len, w.query_len, chunk);
  return sliding && w.query_len > keys ? pairs : pairs * 0.5;
}

// Multi-head latent attention as vLLM's MLA backends run it (DeepSeek-V3): q_a_proj and
// kv_a_proj_with_mqa as one GEMM (fused_qkv_a_proj), their RMSNorms, q_b_proj, rotary on q's and
// the shared key's rope features, the latent and that key (kv_lora_rank + qk_rope_head_dim per
// token) written to the cache. A prefill up-projects the latent of every key it reads (kv_b_proj)
// and attends as multi-head attention (q and k head_dim wide, v v_head_dim); a decode absorbs the
// up-projections instead: each head's q (nope part) times its k up-projection (W_UK), attention
// over the latent cache read once for all heads (every head's q and k latent + rope wide, its
// output the latent), then each head's output times its v up-projection (W_UV).
void latent_attention(GraphBuilder& g, const ModelConfig& m, const Workload& w, std::int64_t keys,
                      bool sliding) {
  const std::int64_t B = w.batch, S = w.query_len, T = GraphBuilder::mul(B, S), H = m.hidden_size;
  const std::int64_t heads = m.num_heads, hd = m.head_dim, rope = m.qk_rope_head_dim,
                     nope = hd - rope, vd = m.v_head_dim, kvl = m.kv_lora_rank, lat = kvl + rope;
  const double bytes = dtype_bytes(w.dtype);
  const Op norm_fp32 = Op::ln;
  if (m.q_lora_rank > 0) {
    g.linear("fused_qkv_a_proj", T, H, m.q_lora_rank + lat, {});
    token_kernel(g, "q_a_layernorm", "rmsnorm", norm_fp32, T, m.q_lora_rank, OpKind::norm);
    g.linear("q_b_proj", T, m.q_lora_rank, GraphBuilder::mul(heads, hd), {});
  } else {
    g.linear("q_proj", T, H, GraphBuilder::mul(heads, hd), {});
    g.linear("kv_a_proj_with_mqa", T, H, lat, {});
  }
  token_kernel(g, "kv_a_layernorm", "rmsnorm", norm_fp32, T, kvl, OpKind::norm);
  token_kernel(g, "rotary", "rotary", Op::mul, T, GraphBuilder::mul(heads + 1, rope),
               OpKind::elementwise);
  g.mem("kv cache write", Phase::forward, 2.0 * double(T) * double(lat), lat, "kv cache write");
  const double pairs = attended_pairs(w, heads, keys, sliding);
  if (w.mode == Mode::prefill) {
    // the keys' latent up-projected, then multi-head attention
    const std::int64_t read = GraphBuilder::mul(B, keys);
    g.linear("kv_b_proj", read, kvl, GraphBuilder::mul(heads, nope + vd), {});
    const double flops = 2 * pairs * double(hd + vd);
    const double moved = (double(T) * double(heads) * double(hd + vd) +
                          double(read) * double(heads) * double(hd + vd)) *
                         bytes;
    g.bmm("fused attention", GraphBuilder::mul(B, heads), S, hd, keys, false)
        .fused(flops, moved, double(keys));
    g.linear("o_proj", T, GraphBuilder::mul(heads, vd), H, {});
    return;
  }
  g.bmm("q absorb (W_UK)", heads, T, nope, kvl, false);
  const double flops = 2 * pairs * double(lat + kvl);
  const double moved =
      (double(T) * double(heads) * double(lat + kvl) + double(B) * double(keys) * double(lat)) *
      bytes;
  g.bmm("fused attention", B, GraphBuilder::mul(S, heads), lat, keys, false)
      .fused(flops, moved, double(keys));
  g.bmm("v up (W_UV)", heads, T, kvl, vd, false);
  g.linear("o_proj", T, GraphBuilder::mul(heads, vd), H, {});
}

// Grouped-query (or multi-head) attention: one QKV GEMM, q and k normed per head where the row
// says (Qwen3, Gemma 3; Llama 4 its chunked layers), rotary on every q and k head (GPT-J:
// rotary_dim of each; Llama 4 its chunked layers only, its global ones scaling q by their
// temperature instead), the new K and V written to the cache, one fused attention kernel (a
// chunked layer's pairs within each chunk: `chunk` > 0), the output projection.
void grouped_query_attention(GraphBuilder& g, const ModelConfig& m, const Workload& w,
                             std::int64_t keys, bool sliding, std::int64_t chunk) {
  const ArchitectureTraits& t = traits(m);
  const std::int64_t B = w.batch, S = w.query_len, T = GraphBuilder::mul(B, S), H = m.hidden_size,
                     hd = m.head_dim;
  const std::int64_t Q = GraphBuilder::mul(m.num_heads, hd),
                     KV = GraphBuilder::mul(m.num_kv_heads, hd);
  const double bytes = dtype_bytes(w.dtype);
  const Op norm_fp32 = Op::ln;
  g.linear("qkv_proj", T, H, Q + 2 * KV, {.bias = m.attention_bias});
  if (qk_norm_layer(m, sliding)) {  // one norm kernel over q's heads, one over k's
    token_kernel(g, "q_norm", "rmsnorm", norm_fp32, GraphBuilder::mul(T, m.num_heads), hd,
                 OpKind::norm);
    token_kernel(g, "k_norm", "rmsnorm", norm_fp32, GraphBuilder::mul(T, m.num_kv_heads), hd,
                 OpKind::norm);
  }
  if (rotary_layer(m, sliding))
    token_kernel(g, "rotary", "rotary", Op::mul, T,
                 GraphBuilder::mul(m.num_heads + m.num_kv_heads, rotary_features(m)),
                 OpKind::elementwise);
  else if (t.global_nope && m.attn_temperature)  // the scales and q's product, one kernel
    token_kernel(g, "attn temperature", "mul", Op::mul, T, Q, OpKind::elementwise);
  g.mem("kv cache write", Phase::forward, 2.0 * 2.0 * double(T) * double(KV), hd, "kv cache write");
  // Q K^T and P V for every head (a causal prefill: half the square; a sliding one the band)
  const double flops = 2 * 2 * attended_pairs(w, m.num_heads, keys, sliding, chunk) * double(hd);
  const double moved =
      (2 * double(T) * double(Q) + 2 * double(B) * double(keys) * double(KV)) * bytes;
  // shape stand-in: one BMM per K/V head group over the keys read
  const std::int64_t groups = GraphBuilder::mul(B, m.num_kv_heads);
  const std::int64_t rows = GraphBuilder::mul(S, m.num_heads / m.num_kv_heads);
  g.bmm("fused attention", groups, rows, hd, keys, false).fused(flops, moved, double(keys));
  g.linear("o_proj", T, Q, H, {.bias = out_proj_bias(m)});
}

}  // namespace

OpGraph build_fused_graph(const ModelConfig& m, const Workload& w) {
  if (w.mode != Mode::prefill && w.mode != Mode::decode)
    throw Error("the fused engine models serving: prefill or decode, not " +
                std::string(mode_name(w.mode)));
  const ArchitectureTraits& t = traits(m);
  // Not decoder-only, or a bad workload: build_op_graph throws the named error.
  if (t.stack != Stack::decoder_only || w.batch < 1 || w.query_len < 1 ||
      w.context_len < w.query_len)
    (void)build_op_graph(m, w);

  OpGraph graph;
  GraphBuilder g(w, graph);
  const std::int64_t B = w.batch, S = w.query_len, C = w.context_len, H = m.hidden_size,
                     F = m.intermediate_size;
  const std::int64_t T = GraphBuilder::mul(B, S);  // tokens this pass computes
  const Op norm_fp32 = Op::ln;
  auto add_norm = [&] { token_kernel(g, "add + norm", "rmsnorm", norm_fp32, T, H, OpKind::norm); };
  // gate and up as one GEMM around one fused activation-and-gate kernel, then down
  auto gated_mlp = [&](std::string_view prefix, std::int64_t rows, std::int64_t inner) {
    const std::string p(prefix);
    g.linear(p + "gate_up_proj", rows, H, 2 * inner, {.bias = m.mlp_bias});
    token_kernel(g, p + "act_and_mul", "silu_mul", Op::gelu, rows, inner, OpKind::elementwise);
    g.linear(p + "down_proj", rows, inner, H, {.bias = m.mlp_bias});
  };

  g.section("embeddings", 1);
  token_kernel(g, "embed_tokens", "embedding", Op::addu, T, H, OpKind::memory);

  // layer kinds: sliding-window or global attention (Gemma 2), experts or a dense MLP (MoE)
  struct Kind {
    bool sliding, experts;
    std::int64_t count;
  };
  std::vector<Kind> kinds;
  for (std::int64_t i = 0; i < m.num_layers; ++i) {
    const Kind k{is_sliding_layer(m, i), is_moe_layer(m, i), 1};
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& x) {
      return x.sliding == k.sliding && x.experts == k.experts;
    });
    if (it == kinds.end())
      kinds.push_back(k);
    else
      ++it->count;
  }
  for (const Kind& kind : kinds) {
    std::string name = "decoder layer";
    if (t.sliding != Sliding::none)
      name += !kind.sliding                   ? " (global)"
              : t.sliding == Sliding::chunked ? " (chunked)"
                                              : " (sliding)";
    if (m.num_experts > 0) name += kind.experts ? " (experts)" : " (dense)";
    g.section(name, kind.count);
    // keys each query reads: a sliding layer at most the window; a chunked one (Llama 4) a
    // decode's since its chunk began, a prefill's at most the chunk
    const std::int64_t chunk = kind.sliding && t.sliding == Sliding::chunked ? m.sliding_window : 0;
    const std::int64_t keys = !kind.sliding                         ? C
                              : chunk > 0 && w.mode == Mode::decode ? (C - 1) % chunk + 1
                                                                    : std::min(C, m.sliding_window);
    add_norm();
    if (t.latent_attention)
      latent_attention(g, m, w, keys, kind.sliding);
    else
      grouped_query_attention(g, m, w, keys, kind.sliding, chunk);
    if (t.sandwich_norms) add_norm();  // post-attention norm before the residual
    if (!t.parallel_residual)
      add_norm();
    else if (m.parallel_norms == 2)  // Falcon's ln_mlp beside ln_attn; else the MLP reads its norm
      token_kernel(g, "norm (mlp)", "rmsnorm", norm_fp32, T, H, OpKind::norm);
    if (kind.experts) {
      // router GEMM, one fused softmax + top-k kernel, the grouped expert GEMMs (one per active
      // expert at its routed rows, as a fused MoE kernel's tiles run), the weighted sum
      const MoeSpec spec{.hidden = H,
                         .experts = m.num_experts,
                         .top_k = m.experts_per_token,
                         .expert_inner = m.expert_intermediate_size,
                         .shards = m.expert_shards};
      g.linear("router", T, H, m.num_experts, {});
      token_kernel(g, "topk_softmax", "add", Op::addu, T, m.num_experts, OpKind::softmax);
      const RoutedExperts routed = routed_experts(spec, T);
      const std::int64_t assigned = GraphBuilder::mul(T, m.experts_per_token);
      for (std::int64_t e = 0; e < routed.active; ++e)
        g.linear("experts gate_up", routed.rows(e), H, 2 * m.expert_intermediate_size,
                 {.routed_expert = true});
      token_kernel(g, "experts act_and_mul", "silu_mul", Op::gelu, assigned,
                   m.expert_intermediate_size, OpKind::elementwise);
      for (std::int64_t e = 0; e < routed.active; ++e)
        g.linear("experts down", routed.rows(e), m.expert_intermediate_size, H,
                 {.routed_expert = true});
      token_kernel(g, "moe weighted sum", "add", Op::add, T, H, OpKind::elementwise);
      if (m.shared_expert_intermediate_size > 0) {
        gated_mlp("shared ", T, m.shared_expert_intermediate_size);
        if (t.shared_expert_gate) g.linear("shared_expert_gate", T, H, 1, {});
        token_kernel(g, "shared gate + add", "add", Op::add, T, H, OpKind::elementwise);
      }
    } else if (t.ffn == Ffn::gated) {
      gated_mlp("", T, F);
    } else {
      g.linear("fc1", T, H, F, {.bias = m.mlp_bias});
      g.vec_fw("activation", Op::gelu, T, F, OpKind::elementwise);
      g.linear("fc2", T, F, H, {.bias = m.mlp_bias});
    }
    if (t.sandwich_norms) add_norm();  // post-feedforward norm
    // parallel: attention output + MLP output (the residual joins in the next add + norm)
    if (t.parallel_residual)
      token_kernel(g, "attention + mlp", "add", Op::add, T, H, OpKind::elementwise);
  }

  g.section("head", 1);
  // the last layer's residual add + final norm, logits of the last position per sequence
  token_kernel(g, "add + norm", "rmsnorm", norm_fp32, B, H, OpKind::norm);
  // vLLM's ParallelLMHead pads the vocabulary to a multiple of 64 before splitting it over the TP
  // GPUs (DEFAULT_VOCAB_PADDING_SIZE, vllm/model_executor/layers/vocab_parallel_embedding.py), so
  // each GPU's share (m here) is a multiple of 64 / TP >= 8 rows up to TP 8: padded to 8, its
  // logits GEMM stays as aligned as vLLM's (kernel/library_profile.hpp, misaligned GEMMs)
  constexpr std::int64_t kVocabRows = 8;
  const std::int64_t vocab = ceil_div(m.vocab_size, kVocabRows) * kVocabRows;
  g.linear("lm_head", B, H, vocab, {.tied = m.tie_word_embeddings});
  if (m.final_logit_softcap > 0) g.vec_fw("final softcap", Op::tanh, B, vocab, OpKind::elementwise);
  return graph;
}

}  // namespace tilecast::detail
