// Multi-head attention, written once: every architecture's self- and
// cross-attention is an AttentionSpec over this one sequence of kernels.
#include <optional>
#include <utility>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {
namespace {

// q*cos + rotate_half(q)*sin over rows x hd (rows = batch x heads x tokens).
void rotary(GraphBuilder& g, std::string_view name, std::int64_t rows, std::int64_t hd) {
  const double n = double(rows) * double(hd);
  g.vec(name, Op::mul, rows, hd, OpKind::elementwise, 1).saves(0);  // keeps the cos table
  g.vec(name, Op::mulu, rows, hd / 2 > 0 ? hd / 2 : 1, OpKind::elementwise, 1, "rotary neg");
  g.mem(name, Phase::forward, 2 * n, hd, "rotary cat");
  if (g.training()) g.mem(name, Phase::backward, 2 * n, hd, "rotary cat backward");
  g.vec(name, Op::mul, rows, hd, OpKind::elementwise, 1).saves(0);  // keeps the sin table
  g.vec(name, Op::add, rows, hd, OpKind::elementwise);
}

// Multi-head latent attention's projections as transformers' DeepseekV3Attention runs them: q
// through its bottleneck, the k/v latent and the shared rotary key from the input, the latent
// normed and up-projected to every head's k (nope part) and v; the rope_dim features of q and of
// the one rotary key rotated (their interleaved layout first made contiguous, rope_interleave),
// the rotary key expanded to the heads and q's and k's parts concatenated (two copies).
void latent_projections(GraphBuilder& g, const AttentionSpec& a, std::int64_t batch,
                        std::int64_t q_len) {
  const AttentionSpec::Latent& l = a.latent;
  const std::int64_t R = GraphBuilder::mul(batch, q_len), hd = a.head_dim;
  const std::int64_t Q = GraphBuilder::mul(a.heads, hd);
  const std::int64_t BHS = GraphBuilder::mul(batch, a.heads, q_len);
  const auto attention_lora = LinearOptions::LoraSite::attention;
  if (l.q_rank > 0) {
    g.linear("q_a_proj", R, a.hidden, l.q_rank, {.bias = a.qkv_bias, .lora = attention_lora});
    norm(g, Norm::rms, "q_a_layernorm", R, l.q_rank);
    g.linear("q_b_proj", R, l.q_rank, Q, {.tp = TpSplit::column, .lora = attention_lora});
  } else {
    g.linear("q_proj", R, a.hidden, Q, {.tp = TpSplit::column, .lora = attention_lora});
  }
  g.linear("kv_a_proj_with_mqa", R, a.hidden, l.kv_rank + l.rope_dim,
           {.bias = a.qkv_bias, .shares_input = true, .lora = attention_lora});
  norm(g, Norm::rms, "kv_a_layernorm", R, l.kv_rank);
  g.linear("kv_b_proj", R, l.kv_rank, GraphBuilder::mul(a.heads, hd - l.rope_dim + l.v_dim),
           {.tp = TpSplit::column, .lora = attention_lora});
  for (const auto& [which, rows] :
       {std::pair{"rope interleave (q)", BHS}, std::pair{"rope interleave (k)", R}})
    g.mem(which, Phase::forward, 2.0 * double(rows) * double(l.rope_dim), l.rope_dim, "contiguous");
  rotary(g, "rotary (q)", BHS, l.rope_dim);
  rotary(g, "rotary (k)", R, l.rope_dim);
  for (const char* which : {"cat (q)", "cat (k)"}) {
    const double n = double(BHS) * double(hd);
    g.mem(which, Phase::forward, 2 * n, hd, "rotary cat");
    if (g.training()) g.mem(which, Phase::backward, 2 * n, hd, "rotary cat backward");
  }
}

// Llama 4's apply_rotary_emb over rows x hd: the features as complex pairs times the table's row,
// in FP32 (a pure half forward casts up before and back after); the multiply keeps the table.
void complex_rotary(GraphBuilder& g, std::string_view name, std::int64_t rows, std::int64_t hd) {
  const bool upcast = g.fp32_islands();
  const double n = double(rows) * double(hd);
  if (upcast) g.cast(name, Phase::forward, n, hd, "to float32");
  {
    std::optional<GraphBuilder::Fp32Kernels> fp32;
    if (upcast) fp32.emplace(g);
    g.vec(name, Op::mul, rows, hd, OpKind::elementwise, 1, "complex multiply").saves(0);
  }
  if (upcast) g.cast(name, Phase::forward, n, hd, "to half");
}

// Llama 4's attention temperature on its NoPE layers (AttentionSpec::temperature): the scales
// from the q_len positions (cache_position.float(), + 1, / floor_scale, floor, log1p,
// * attn_scale, + 1), then q (rows x hd) times its position's scale.
void temperature(GraphBuilder& g, std::int64_t q_len, std::int64_t rows, std::int64_t hd) {
  const std::string_view name = "attn temperature";
  const std::pair<Op, std::string_view> scales[] = {
      {Op::addu, "to float"}, {Op::addu, "add"}, {Op::divu, "div"}, {Op::addu, "floor"},
      {Op::addu, "log1p"},    {Op::mulu, "mul"}, {Op::addu, "add"}};
  for (const auto& [op, what] : scales) g.vec_fw(name, op, 1, q_len, OpKind::elementwise, what);
  const bool upcast = g.fp32_islands();  // a half q times FP32 scales: an FP32 product
  {
    std::optional<GraphBuilder::Fp32Kernels> fp32;
    if (upcast) fp32.emplace(g);
    g.vec(name, Op::mul, rows, hd, OpKind::elementwise, 1);
  }
  if (upcast) g.cast(name, Phase::forward, double(rows) * double(hd), hd, "to half");
}

}  // namespace

void attention(GraphBuilder& g, const AttentionSpec& a, std::int64_t batch, std::int64_t q_len,
               std::int64_t kv_len) {
  const std::int64_t hd = a.head_dim;
  const bool latent = a.latent.kv_rank > 0;
  const std::int64_t vd = latent ? a.latent.v_dim : hd;                    // each value's width
  const std::int64_t R = GraphBuilder::mul(batch, q_len);                  // query rows
  const std::int64_t KR = a.cross ? GraphBuilder::mul(batch, kv_len) : R;  // k/v input rows
  const std::int64_t Q = GraphBuilder::mul(a.heads, hd), KV = GraphBuilder::mul(a.kv_heads, hd);
  const std::int64_t BH = GraphBuilder::mul(batch, a.heads);
  const std::int64_t BHS = GraphBuilder::mul(batch, a.heads, q_len);  // score rows
  const std::int64_t S = kv_len;                                      // score width
  const double scores = double(BHS) * double(S);

  // projections
  if (latent) {
    latent_projections(g, a, batch, q_len);
  } else if (a.fused_qkv) {
    g.linear(
        a.names[0], R, a.hidden, Q + 2 * KV,
        {.bias = a.qkv_bias, .tp = TpSplit::column, .lora = LinearOptions::LoraSite::attention});
  } else {
    g.linear(
        a.names[0], R, a.hidden, Q,
        {.bias = a.qkv_bias, .tp = TpSplit::column, .lora = LinearOptions::LoraSite::attention});
    if (a.scaling == Scaling::query_mulu) g.vec("scaling", Op::mulu, R, Q, OpKind::elementwise);
    // k and v read the same input as q (self-attention) or the encoder's states,
    // which every decoder layer keeps anyway (cross-attention)
    g.linear(
        a.names[1], KR, a.hidden, KV,
        {.bias = a.qkv_bias, .shares_input = true, .lora = LinearOptions::LoraSite::attention});
    if (a.per_head_copies) g.mem("contiguous (k)", Phase::forward, 2.0 * KR * KV, hd, "contiguous");
    g.linear(
        a.names[2], KR, a.hidden, KV,
        {.bias = a.qkv_bias, .shares_input = true, .lora = LinearOptions::LoraSite::attention});
    if (a.per_head_copies) g.mem("contiguous (v)", Phase::forward, 2.0 * KR * KV, hd, "contiguous");
    if (a.per_head_copies) g.mem("contiguous (q)", Phase::forward, 2.0 * R * Q, hd, "contiguous");
  }
  if (a.qk_norm && !latent) {  // each head's q and k features normed (q_norm, k_norm)
    norm(g, a.qk_norm_kind, "q_norm", BHS, hd);
    norm(g, a.qk_norm_kind, "k_norm", GraphBuilder::mul(batch, a.kv_heads, q_len), hd);
  }
  if (a.rotary && !latent && a.complex_rotary) {
    complex_rotary(g, "rotary (q)", BHS, hd);
    complex_rotary(g, "rotary (k)", GraphBuilder::mul(batch, a.kv_heads, q_len), hd);
  } else if (a.rotary && !latent) {
    const std::int64_t BKS = GraphBuilder::mul(batch, a.kv_heads, q_len);
    const std::int64_t rd = a.rotary_dim > 0 && a.rotary_dim < hd ? a.rotary_dim : hd;
    const bool upcast = a.fp32_rotary && g.fp32_islands();
    const double qn = double(BHS) * double(hd), kn = double(BKS) * double(hd);
    if (upcast) {
      g.cast("rotary (q)", Phase::forward, qn, hd, "to float32");
      g.cast("rotary (k)", Phase::forward, kn, hd, "to float32");
    }
    {
      std::optional<GraphBuilder::Fp32Kernels> fp32;
      if (upcast) fp32.emplace(g);
      rotary(g, "rotary (q)", BHS, rd);
      rotary(g, "rotary (k)", BKS, rd);
    }
    if (upcast) {
      g.cast("rotary (q)", Phase::forward, qn, hd, "to half");
      g.cast("rotary (k)", Phase::forward, kn, hd, "to half");
    }
    if (rd < hd)  // torch.cat([rotated, passed], dim=-1) of q and of k
      for (const auto& [which, rows] :
           {std::pair{"rotary cat (q)", BHS}, std::pair{"rotary cat (k)", BKS}}) {
        const double n = double(rows) * double(hd);
        g.mem(which, Phase::forward, 2 * n, hd, "rotary cat");
        if (g.training()) g.mem(which, Phase::backward, 2 * n, hd, "rotary cat backward");
      }
  }
  if (a.temperature) temperature(g, q_len, BHS, hd);
  // the KV cache (self-attention): prefill writes the prompt's K and V into it;
  // decode appends the new token's with torch.cat (Hugging Face's DynamicCache),
  // reading the cache and writing it anew
  const Mode mode = g.workload().mode;
  if (!a.cross && (mode == Mode::prefill || mode == Mode::decode)) {
    for (const auto& [which, width] :
         {std::pair{"kv cache (k)", hd}, std::pair{"kv cache (v)", vd}}) {
      const double fresh = double(GraphBuilder::mul(batch, a.kv_heads, q_len)) * double(width);
      const double whole = double(GraphBuilder::mul(batch, a.kv_heads, S)) * double(width);
      if (mode == Mode::prefill)
        g.mem(which, Phase::forward, 2 * fresh, width, "kv cache write");
      else
        g.mem(which, Phase::forward, 2 * whole, width, "kv cache append (cat)");
    }
  }
  if (a.kv_heads != a.heads) {
    const std::int64_t BKS = GraphBuilder::mul(batch, a.kv_heads, S);
    const std::int64_t BHK = GraphBuilder::mul(batch, a.heads, S);
    const double elems = double(BKS) * hd + double(BHK) * hd;
    for (const char* which : {"repeat_kv (k)", "repeat_kv (v)"}) {
      g.mem(which, Phase::forward, elems, hd, "gqa repeat");
      if (g.training()) g.mem(which, Phase::backward, elems, hd, "gqa repeat backward");
    }
  }

  // scores, mask, probabilities
  g.bmm("matmul (q k^T)", BH, q_len, hd, S);
  if (a.scaling == Scaling::scores_div_tensor)
    g.vec("truediv", Op::div, BHS, S, OpKind::elementwise, 1);
  else if (a.scaling == Scaling::scores_divu)
    g.vec("scale", Op::divu, BHS, S, OpKind::elementwise);
  else if (a.scaling == Scaling::scores_mulu)
    g.vec("scale", Op::mulu, BHS, S, OpKind::elementwise);
  if (a.softcap > 0) {  // softcap * tanh(scores / softcap)
    g.vec("softcap", Op::divu, BHS, S, OpKind::elementwise);
    g.vec("softcap", Op::tanh, BHS, S, OpKind::elementwise);
    g.vec("softcap", Op::mulu, BHS, S, OpKind::elementwise);
  }
  switch (a.mask) {
    case Mask::where: {
      // reads the (q_len x kv_len) mask slice and the scores, writes the scores
      const double mask = double(q_len) * double(S);
      g.mem("where", Phase::forward, mask + 2 * scores + 1, S, "where");
      if (g.training()) {
        g.mem("where", Phase::backward, mask + scores + 1, S, "where");
        g.mem("where", Phase::backward, mask + scores + 1, S, "where");
      }
      break;
    }
    case Mask::add: g.vec("mask add", Op::add, BHS, S, OpKind::elementwise); break;
    case Mask::position_bias:
      g.vec("position bias add", Op::add, BHS, S, OpKind::elementwise);
      break;
    case Mask::add_clamp:
      g.vec("mask add", Op::add, BHS, S, OpKind::elementwise);
      // torch.max(w, finfo.min): one element-wise kernel; its backward is
      // where(w == min, grad / 2, grad).masked_fill_(w < min, 0): five kernels.
      g.vec_fw("max (clamp)", Op::addu, BHS, S, OpKind::elementwise, "maximum")
          .saves(scores * kFloatBytes);  // the scores, for the eq/lt masks
      g.vec_bw("max (clamp)", Op::addu, BHS, S, OpKind::elementwise, "eq");
      g.vec_bw("max (clamp)", Op::divu, BHS, S, OpKind::elementwise);
      g.vec_bw("max (clamp)", Op::add, BHS, S, OpKind::elementwise, "where");
      g.vec_bw("max (clamp)", Op::addu, BHS, S, OpKind::elementwise, "lt");
      g.vec_bw("max (clamp)", Op::mulu, BHS, S, OpKind::elementwise, "masked_fill");
      break;
  }
  // FP32 probabilities in a pure half forward: the softmax kernel listed in FP32 (it reads the
  // half scores: 2 of the 4 bytes it is listed with), then the cast back
  const bool fp32_probabilities = a.fp32_probabilities && g.fp32_islands();
  // sinks: the heads' logits expanded (a view) and concatenated as a last column (a copy of the
  // scores), the row's max (amax) subtracted, the softmax over one column more, then the sinks'
  // column dropped (a view). Backward: the slice's gradient padded into zeros, the subtraction's
  // summed for the max and scattered to its positions, the sinks' gradient summed over the batch
  // and the queries.
  const std::int64_t width = a.sinks ? S + 1 : S;
  if (a.sinks) {
    const double wide = double(BHS) * double(width), rows = double(BHS);
    g.mem("sinks cat", Phase::forward, scores + wide, width, "cat");
    g.mem("logits max", Phase::forward, wide + rows, width, "amax");
    g.vec_fw("logits - max", Op::add, BHS, width, OpKind::elementwise, "sub");
    if (g.training()) {
      g.mem("sinks slice", Phase::backward, wide + scores, width, "slice backward (zeros, copy)");
      g.mem("logits max", Phase::backward, wide + rows, width, "sum");
      g.mem("logits max", Phase::backward, wide + 2 * rows, width, "amax backward");
      g.mem("sinks", Phase::backward, wide, width, "sum (the sinks' gradient)");
    }
  }
  {
    std::optional<GraphBuilder::Fp32Kernels> fp32;
    if (fp32_probabilities) fp32.emplace(g);
    g.vec("softmax", Op::softmax, BHS, width, OpKind::softmax);
  }
  if (fp32_probabilities) g.cast("probs cast", Phase::forward, scores, S, "to half");
  g.dropout("attention dropout", a.dropout, BHS, S);
  // autocast: the FP32 probabilities cast to the half type for P V, and their gradient back
  g.autocast_cast("probs cast", Phase::forward, scores, S);
  g.autocast_cast("probs cast", Phase::backward, scores, S);
  // probabilities @ v keeps both; without dropout the probabilities are the
  // softmax's output, kept by the softmax already
  OpRef av = g.bmm("matmul (attn v)", BH, q_len, S, vd);
  if (a.dropout <= 0) av.saves(double(BH) * double(S) * double(vd) * kFloatBytes);

  // heads back to rows, output projection, residual
  const std::int64_t O = GraphBuilder::mul(a.heads, vd);  // the heads' outputs (Q but for MLA)
  g.mem(a.out_copy, Phase::forward, 2.0 * R * O, a.out_copy_width, a.out_copy_as);
  g.linear(a.names[3], R, O, a.hidden,
           {.bias = a.out_bias, .tp = TpSplit::row, .lora = LinearOptions::LoraSite::attention});
  residual(g, a.out_dropout, R, a.hidden);
}

}  // namespace tilecast::detail
