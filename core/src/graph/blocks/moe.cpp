// The sparse mixture-of-experts feed-forward as Hugging Face's eager Mixtral and Qwen2-MoE
// blocks run it. Routing is assumed uniform and even: each token's top_k experts drawn uniformly
// and independently of the other tokens', so T tokens hit E (1 - (1 - k/E)^T) experts on
// average, which share the T x k assignments evenly (a real router is uneven; the slowest expert
// then sets the pace in a fused kernel, and eager time grows with the busiest experts' GEMMs).
// docs/models.md.
// The expert loop reads values on the host, each a device-to-host copy it waits for
// (GraphBuilder::host_sync: the GPU drains, the kernels after it run at the host's launch pace):
//  * both releases: the experts hit (sum, > 0, nonzero) and per expert torch.where (a nonzero);
//  * transformers 4 (the 4.5x releases' MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock):
//    self.experts[expert_idx] turns the one-element index tensor into an int (.item());
//    expert_mask[expert_idx] is an index kernel;
//  * transformers 5 (MixtralExperts, Qwen2MoeExperts: gate_up_proj and down_proj as stacked
//    weights): `if expert_idx == num_experts` reads a bool, and each 0-d index tensor
//    (expert_mask[..], gate_up_proj[..], down_proj[..]) is read by .item() before its select;
//    in training each select's backward writes the whole stacked parameter's gradient in zeros,
//    puts the expert's slice in and adds it to the other experts' (autograd's select_backward
//    and gradient accumulation: stacked_pick).
// That loop is transformers 5's experts_implementation="eager"; its default, "grouped_mm"
// (integrations/moe.py, grouped_mm_experts_forward), has no loop: the T x k token-expert pairs
// are sorted by expert (argsort), their rows gathered, each projection one torch._grouped_mm
// over the active experts (GraphBuilder::grouped_linear: one kernel or PyTorch's fallback, by
// the GPU), the routing weights applied, the rows put back in token order and summed over k.
// gpt-oss's experts (ExpertForm::gpt_oss, modeling_gpt_oss.py): the router a linear with a bias,
// top-k of its logits, a softmax over the k (transformers 4 scattering them into zeros of
// tokens x experts); each expert's projections a matmul then a bias add, around a SwiGLU clamped
// at 7 over interleaved gate and up columns (two clamps of strided views, the scale, sigmoid,
// product, up + 1, product); the stacked weights and biases picked per expert, transformers 4
// by a one-element index tensor (an index kernel copying the slice), 5 by a 0-d one (.item(),
// then a view); in training each pick's backward writes the whole stacked parameter's gradient
// in zeros, puts the slice in and adds it to the other picks'. In inference transformers 4
// computes every expert on every token (the input repeated per expert, two torch.bmm over the
// stacked weights, then the routing weights of tokens x experts and a sum over the experts).
// Llama 4's experts (ExpertForm::llama4, modeling_llama4.py's Llama4TextMoe in transformers 4.5x
// and 5): the router's top-k logits kept in a tokens x experts tensor of -inf (full_like,
// scatter) and put through a sigmoid in FP32; every expert then runs on every token: the tokens
// repeated once per expert and multiplied by that expert's score (zero but for the top-k), one
// torch.bmm over the stacked gate_up weights, the activation of the gate half times the up half,
// one torch.bmm over the stacked down weights; the shared expert on every token, and the
// experts' outputs summed into its output. No release loops over the experts hit.
#include <algorithm>
#include <cmath>
#include <optional>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void nonzero(GraphBuilder& g, std::string_view name, double mask, std::int64_t width, double found,
             double dims) {
  const double i64 = g.mem_elements(kIndexBytes);
  g.mem(name, Phase::forward, mask + i64, width, "nonzero count");
  g.host_sync(name);
  g.mem(name, Phase::forward, mask + found * dims * i64, width, "nonzero");
}

OpRef expert_combine(GraphBuilder& g, std::int64_t rows, std::int64_t hidden,
                     double weight_elements) {
  const double i64 = g.mem_elements(kIndexBytes), r = double(rows), rh = r * double(hidden);
  OpRef weights = g.mem("routing weight", Phase::forward, 2 * r + 2 * r * i64, 1, "index");
  if (g.training()) {
    g.mem("routing weight", Phase::backward, 2 * r + 2 * r * i64, 1, "index_put");
    g.mem("routing weight", Phase::backward, weight_elements, 1, "zeros");
  }
  g.vec("routing weight scale", Op::mul, rows, hidden, OpKind::elementwise, 2);
  g.mem("expert index_add", Phase::forward, 3 * rh + r * i64, hidden, "index_add");
  if (g.training())
    g.mem("expert index_add", Phase::backward, 2 * rh + r * i64, hidden,
          "index_add backward (index_select)");
  return weights;
}

namespace moe_detail {  // a named namespace: the unity build joins the block files

// Parameters of one expert: its gated MLP's three matrices, gpt-oss's two biases.
double expert_params(const MoeSpec& s) {
  const double H = double(s.hidden), F = double(s.expert_inner);
  return 3 * H * F + (s.form == ExpertForm::gpt_oss ? 2 * F + H : 0);
}

// gpt-oss's clamped SwiGLU over `rows` rows of the interleaved gate and up columns (2F wide):
// each clamp reads a strided view, so the whole interleaved row's sectors; its backward a where
// and the slice's gradient into zeros of the interleaved row.
void gpt_oss_gate(GraphBuilder& g, std::int64_t rows, std::int64_t F) {
  const double rf = double(rows) * double(F);
  for (const char* clamp : {"gate clamp", "up clamp"}) {
    g.mem(clamp, Phase::forward, 3 * rf, F, "clamp (strided)");
    if (g.training()) g.mem(clamp, Phase::backward, 6 * rf, F, "clamp backward (strided)");
  }
  g.vec("gate * alpha", Op::mulu, rows, F, OpKind::elementwise);
  g.vec("sigmoid", Op::gelu, rows, F, OpKind::elementwise, 1, "sigmoid");
  g.vec("glu", Op::mul, rows, F, OpKind::elementwise, 2);
  g.vec("up + 1", Op::addu, rows, F, OpKind::elementwise);
  g.vec("(up + 1) * glu", Op::mul, rows, F, OpKind::elementwise, 2);
}

// One expert's slice, of `slice` elements, of a parameter stacked over the experts (header
// comment).
void stacked_pick(GraphBuilder& g, std::string_view name, const MoeSpec& s, double slice) {
  const double whole = double(s.experts) * slice;
  if (s.transformers_major < 5)
    g.mem(name, Phase::forward, 2 * slice + g.mem_elements(kIndexBytes), 1, "index");
  else
    g.host_sync(std::string(name) + " (item)");
  if (!g.training() || g.frozen_base()) return;
  g.mem(name, Phase::backward, whole, 1, "zeros (the stacked gradient)");
  g.mem(name, Phase::backward, 2 * slice, 1, "index_put");
  g.mem(name, Phase::backward, 3 * whole, 1, "add (the picks' gradients)");
}

// One gpt-oss expert on its `rows` tokens: matmul, bias add, the gate, matmul, bias add.
void gpt_oss_expert(GraphBuilder& g, const MoeSpec& s, std::int64_t rows) {
  const std::int64_t H = s.hidden, F = s.expert_inner;
  stacked_pick(g, "gate_up_proj[expert_idx]", s, double(H) * double(2 * F));
  g.linear("expert gate_up_proj", rows, H, 2 * F, {.tp = TpSplit::column, .routed_expert = true});
  stacked_pick(g, "gate_up_proj_bias[expert_idx]", s, double(2 * F));
  g.vec("gate_up bias", Op::add, rows, 2 * F, OpKind::elementwise, 2).holds(double(2 * F));
  gpt_oss_gate(g, rows, F);
  stacked_pick(g, "down_proj[expert_idx]", s, double(F) * double(H));
  g.linear("expert down_proj", rows, F, H, {.tp = TpSplit::row, .routed_expert = true});
  stacked_pick(g, "down_proj_bias[expert_idx]", s, double(H));
  g.vec("down bias", Op::add, rows, H, OpKind::elementwise, 2).holds(double(H));
}

// transformers 4's gpt-oss inference: every expert on every token (header comment).
void gpt_oss_all_experts(GraphBuilder& g, const MoeSpec& s, std::int64_t R) {
  const std::int64_t H = s.hidden, F = s.expert_inner, E = s.experts;
  const std::int64_t ER = GraphBuilder::mul(E, R);
  const double rh = double(R) * double(H), erh = double(ER) * double(H);
  g.mem("repeat (every expert)", Phase::forward, rh + erh, H, "repeat");
  g.stacked_linear("experts gate_up_proj (bmm)", E, R, H, 2 * F,
                   {.tp = TpSplit::column, .routed_expert = true});
  g.vec("gate_up bias", Op::add, ER, 2 * F, OpKind::elementwise, 2).holds(double(E) * 2 * F);
  gpt_oss_gate(g, ER, F);
  g.stacked_linear("experts down_proj (bmm)", E, R, F, H,
                   {.tp = TpSplit::row, .routed_expert = true});
  g.vec("down bias", Op::add, ER, H, OpKind::elementwise, 2).holds(double(E) * double(H));
  g.vec("routing weight scale", Op::mul, ER, H, OpKind::elementwise, 2);
  g.mem("sum over experts", Phase::forward, erh + rh, H, "sum");
}

// One expert's SwiGLU on its `rows` tokens; transformers 5 runs gate_up_proj as one GEMM, each
// stacked weight selected by a 0-d index tensor (.item(), a host sync) just before its GEMM, whose
// backward (select's) writes the whole stacked parameter's gradient (stacked_pick).
void expert_mlp(GraphBuilder& g, const MoeSpec& s, std::int64_t rows) {
  if (s.form == ExpertForm::gpt_oss) {
    gpt_oss_expert(g, s, rows);
    return;
  }
  if (s.transformers_major < 5) {
    mlp(g,
        {.hidden = s.hidden,
         .inner = s.expert_inner,
         .names = {"expert gate_proj", "expert up_proj", "expert down_proj"},
         .gated = true,
         .act = s.act,
         .act_name = "expert act",
         .routed_expert = true},
        rows);
    return;
  }
  const std::int64_t H = s.hidden, F = s.expert_inner;
  stacked_pick(g, "gate_up_proj[expert_idx]", s, double(H) * double(2 * F));
  g.linear("expert gate_up_proj", rows, H, 2 * F, {.tp = TpSplit::column, .routed_expert = true});
  activation(g, "expert act", s.act, rows, F);
  g.vec("gate * up", Op::mul, rows, F, OpKind::elementwise, 2);
  stacked_pick(g, "down_proj[expert_idx]", s, double(F) * double(H));
  g.linear("expert down_proj", rows, F, H, {.tp = TpSplit::row, .routed_expert = true});
}

// Llama 4's Llama4TextMoe over `R` tokens (header comment): router, every expert, shared expert.
void llama4_moe(GraphBuilder& g, const MoeSpec& s, std::int64_t R) {
  const std::int64_t H = s.hidden, F = s.expert_inner, E = s.experts, k = s.top_k;
  const std::int64_t ER = GraphBuilder::mul(E, R);
  const double RE = double(R) * double(E), Rk = double(R) * double(k),
               i64 = g.mem_elements(kIndexBytes), rh = double(R) * double(H),
               erh = double(ER) * double(H);
  g.linear("router", R, H, E, {}).holds(double(H) * double(E));
  g.mem("router topk", Phase::forward, RE + 2 * Rk, E, "topk");
  if (g.training()) g.mem("router topk", Phase::backward, RE + Rk, E, "topk backward (scatter)");
  g.mem("router scores", Phase::forward, RE, E, "full");  // full_like(logits, -inf)
  g.mem("router scores", Phase::forward, 2 * Rk + Rk * i64, E, "scatter");
  if (g.training())
    g.mem("router scores", Phase::backward, 2 * Rk + Rk * i64, E, "gather (scatter backward)");
  const bool upcast = g.fp32_islands();  // sigmoid(scores.float()).to(scores.dtype)
  if (upcast) g.cast("router sigmoid", Phase::forward, RE, E, "to float32");
  {
    std::optional<GraphBuilder::Fp32Kernels> fp32;
    if (upcast) fp32.emplace(g);
    g.vec("router sigmoid", Op::gelu, R, E, OpKind::elementwise, 1, "sigmoid");
  }
  if (upcast) g.cast("router sigmoid", Phase::forward, RE, E, "to half");
  // the scores as one column per expert's copy of the tokens (transpose, reshape: a copy), the
  // tokens repeated per expert (its backward sums the copies' gradients), the product
  g.mem("router scores (per expert)", Phase::forward, 2 * RE, R, "contiguous");
  g.mem("repeat (every expert)", Phase::forward, rh + erh, H, "repeat");
  if (g.training()) g.mem("repeat (every expert)", Phase::backward, erh + rh, H, "sum");
  g.vec("routed_in * scores", Op::mul, ER, H, OpKind::elementwise, 2);
  g.stacked_linear("experts gate_up_proj (bmm)", E, R, H, 2 * F,
                   {.tp = TpSplit::column, .routed_expert = true});
  activation(g, "experts act", s.act, ER, F);
  g.vec("up * act(gate)", Op::mul, ER, F, OpKind::elementwise, 2);
  g.stacked_linear("experts down_proj (bmm)", E, R, F, H,
                   {.tp = TpSplit::row, .routed_expert = true});
  mlp(g,
      {.hidden = H,
       .inner = s.shared_inner,
       .names = {"shared gate_proj", "shared up_proj", "shared down_proj"},
       .gated = true,
       .act = s.act,
       .act_name = "shared act"},
      R);
  g.mem("sum over experts", Phase::forward, erh + rh, H, "sum");
  g.vec("shared + routed", Op::add, R, H, OpKind::elementwise);  // out.add_(...)
}

}  // namespace moe_detail

RoutedExperts routed_experts(const MoeSpec& s, std::int64_t rows) {
  // an expert escapes one token's top-k with probability 1 - k/E; all T tokens with that to the
  // power T, computed by squaring (the same IEEE operations natively and in WebAssembly). Spread
  // over n GPUs (s.shards), each GPU's E / n experts see the n x T tokens of all of them and
  // compute T x k rows between them (uniform routing).
  const double E = double(s.experts), n = double(std::max<std::int64_t>(s.shards, 1));
  const std::int64_t seen = GraphBuilder::mul(double(std::max<std::int64_t>(rows, 1)), n);
  double missed = 1, power = 1 - double(s.top_k) / E;
  for (std::int64_t t = seen; t > 0 && missed > 0; t >>= 1) {
    if (t & 1) missed *= power;
    power *= power;
  }
  const double hit = std::min({E / n, double(std::max<std::int64_t>(rows, 1)) * double(s.top_k),
                               std::round(E / n * (1 - missed))});
  RoutedExperts r;
  r.active = std::max<std::int64_t>(1, std::int64_t(hit));
  const std::int64_t assignments = GraphBuilder::mul(double(rows), double(s.top_k));
  r.fewest = assignments / r.active;
  r.heavier = assignments % r.active;
  return r;
}

namespace moe_detail {

// PyTorch's sort of n int64 keys with their indices (argsort): up to 4096 one bitonic kernel in
// shared memory, longer a radix sort passing over the keys and values once per 8 of their 64
// bits (ATen native/cuda/Sort.cpp, should_use_small_sort; SortStable.cu over cub's radix sort).
void argsort(GraphBuilder& g, std::string_view name, double n) {
  constexpr double kSmallSortMax = 4096, kRadixPasses = 64.0 / 8;
  const double i64 = g.mem_elements(kIndexBytes);
  g.mem(name, Phase::forward, (n <= kSmallSortMax ? 1 : kRadixPasses) * 4 * n * i64, 1, "sort");
}

// out = src[index] over `rows` rows of h: the index kernel; backward, index_put accumulating
// into zeros of the source's `src_rows` rows.
void row_gather(GraphBuilder& g, std::string_view name, double rows, double src_rows,
                std::int64_t h) {
  const double i64 = g.mem_elements(kIndexBytes), moved = 2 * rows * double(h) + rows * i64;
  g.mem(name, Phase::forward, moved, h, "index");
  if (!g.training()) return;
  g.mem(name, Phase::backward, src_rows * double(h), h, "zeros");
  g.mem(name, Phase::backward, moved, h, "index_put");
}

// transformers 5's grouped_mm_experts_forward over `rows` tokens (header comment).
void grouped_experts(GraphBuilder& g, const MoeSpec& s, std::int64_t rows) {
  const std::int64_t H = s.hidden, F = s.expert_inner, E = s.experts;
  const std::int64_t pairs = GraphBuilder::mul(double(rows), double(s.top_k));
  const RoutedExperts routed = routed_experts(s, rows);
  const std::int64_t n = routed.active, per = routed.most();
  const double i64 = g.mem_elements(kIndexBytes), i32 = g.mem_elements(4), P = double(pairs),
               dE = double(E), R = double(rows), RH = R * double(H), PH = P * double(H);
  // token_idx: arange(T) expanded k times and flattened (a copy); the pairs' rows gathered
  g.mem("token_idx", Phase::forward, R * i64, 1, "arange");
  g.mem("token_idx", Phase::forward, 2 * P * i64, 1, "copy");
  row_gather(g, "pairs gather", P, R, H);
  // perm = argsort(expert_ids), inv_perm = argsort(perm); expert ids, weights and rows by perm
  argsort(g, "argsort (by expert)", P);
  argsort(g, "argsort (inverse)", P);
  g.mem("expert_ids[perm]", Phase::forward, 3 * P * i64, 1, "index");
  g.mem("sample_weights[perm]", Phase::forward, 2 * P + P * i64, 1, "index");
  row_gather(g, "pairs by expert", P, P, H);
  // the groups' offsets: the ids as int32, histc over the experts, cumsum
  g.mem("expert offsets", Phase::forward, P * i64 + P * i32, 1, "copy");
  g.mem("expert offsets", Phase::forward, P * i32 + dE * i32, 1, "histc");
  g.mem("expert offsets", Phase::forward, 2 * dE * i32, E, "cumsum");
  const bool gpt_oss = s.form == ExpertForm::gpt_oss;
  g.grouped_linear("experts gate_up_proj", n, per, H, 2 * F,
                   {.tp = TpSplit::column, .routed_expert = true});
  if (gpt_oss) {  // each pair's bias gathered by its expert id, then added
    row_gather(g, "gate_up_proj_bias[expert_ids]", P, dE, 2 * F);
    g.vec("gate_up bias", Op::add, pairs, 2 * F, OpKind::elementwise, 2).holds(dE * 2 * F);
    gpt_oss_gate(g, pairs, F);
  } else {
    activation(g, "expert act", s.act, pairs, F);
    g.vec("gate * up", Op::mul, pairs, F, OpKind::elementwise, 2);
  }
  g.grouped_linear("experts down_proj", n, per, F, H, {.tp = TpSplit::row, .routed_expert = true});
  if (gpt_oss) {
    row_gather(g, "down_proj_bias[expert_ids]", P, dE, H);
    g.vec("down bias", Op::add, pairs, H, OpKind::elementwise, 2).holds(dE * double(H));
  }
  g.vec("routing weight scale", Op::mul, pairs, H, OpKind::elementwise, 2);
  row_gather(g, "pairs in token order", P, P, H);
  // view(T, k, H).sum(dim=1); its backward materialises the expanded gradient
  g.mem("sum over top-k", Phase::forward, PH + RH, H, "sum");
  g.mem("sum over top-k", Phase::backward, PH + RH, H, "copy");
}

// The eager loop over experts (header comment), after the router.
void expert_loop(GraphBuilder& g, const MoeSpec& s, std::int64_t R) {
  const std::int64_t H = s.hidden, E = s.experts, k = s.top_k;
  const double Rk = double(R) * double(k), RH = double(R) * double(H);
  const RoutedExperts routed = routed_experts(s, R);
  // the output buffer; the one-hot int64 mask (zeros, scatter; its permute is a view); the
  // experts hit: the mask summed per expert, > 0, nonzero
  const double i64 = g.mem_elements(kIndexBytes), b1 = g.mem_elements(kMaskBytes);
  const double dE = double(E);
  g.mem("zeros (output)", Phase::forward, RH, H, "zeros");
  g.mem("one_hot expert mask", Phase::forward, Rk * dE * i64, E, "zeros");
  g.mem("one_hot expert mask", Phase::forward, 2 * Rk * i64, E, "scatter");
  g.mem("experts hit", Phase::forward, (Rk * dE + dE) * i64, E, "sum");
  g.mem("experts hit", Phase::forward, dE * (i64 + b1), E, "gt");
  nonzero(g, "experts hit", dE * b1, E, dE, 1);
  for (std::int64_t e = 0; e < routed.active; ++e) {
    const std::int64_t rows_e = routed.rows(e);
    const double re = double(rows_e), eh = re * double(H);
    if (s.form == ExpertForm::gpt_oss && s.transformers_major < 5) {
      g.host_sync("expert_mask[expert_idx[0]] (item)");
    } else if (s.transformers_major < 5) {
      g.host_sync("self.experts[expert_idx] (item)");
      g.mem("expert mask", Phase::forward, 2 * Rk * i64 + i64, R, "index");
    } else {
      g.mem("expert_idx == num_experts", Phase::forward, i64 + b1, 1, "eq");
      g.host_sync("expert_idx == num_experts (bool)");
      g.host_sync("expert_mask[expert_idx] (item)");
    }
    // torch.where over the expert's k x rows mask: (k position, token) per routed token
    nonzero(g, "expert where", Rk * i64, R, re, 2);
    // the expert's tokens gathered by index (backward: a zero gradient, index_put accumulating)
    g.mem("expert gather", Phase::forward, 2 * eh + re * i64, H, "index");
    if (g.training()) {
      g.mem("expert gather", Phase::backward, 2 * eh + re * i64, H, "index_put");
      g.mem("expert gather", Phase::backward, RH, H, "zeros");
    }
    expert_mlp(g, s, rows_e);
    // the routing weights: transformers 4's gpt-oss scores are tokens x experts
    const bool dense_scores = s.form == ExpertForm::gpt_oss && s.transformers_major < 5;
    expert_combine(g, rows_e, H, dense_scores ? double(R) * dE : Rk);
  }
}

}  // namespace moe_detail

void moe(GraphBuilder& g, const MoeSpec& s, std::int64_t rows) {
  if (s.form == ExpertForm::llama4) {  // every expert on every token, whatever the release
    moe_detail::llama4_moe(g, s, rows);
    return;
  }
  const std::int64_t R = rows, H = s.hidden, E = s.experts, k = s.top_k;
  const double RE = double(R) * double(E), Rk = double(R) * double(k);
  // router: logits, softmax in FP32, top-k (values and indices), optional renormalisation
  // experts that receive no tokens launch nothing; their weights are resident all the same and
  // are listed on the router's op (so the parameter count never depends on the workload)
  const bool gpt_oss = s.form == ExpertForm::gpt_oss;
  // transformers 4's gpt-oss inference runs every expert (header comment)
  const bool every_expert = gpt_oss && s.transformers_major < 5 && !g.training();
  const std::int64_t n = every_expert ? E : routed_experts(s, R).active;
  const double idle = double(E - n) * moe_detail::expert_params(s);
  // Mixtral and the Qwen MoEs: softmax over the experts, top-k, optional renormalisation;
  // gpt-oss: a biased router, top-k of its logits, softmax over the k
  if (gpt_oss)
    g.linear("router", R, H, E, {.bias = true}).holds(double(H) * double(E) + double(E) + idle);
  else
    g.linear("gate (router)", R, H, E, {}).holds(double(H) * double(E) + idle);
  if (!gpt_oss) g.vec("router softmax", Op::softmax, R, E, OpKind::softmax);
  g.mem("router topk", Phase::forward, RE + 2 * Rk, E, "topk");
  if (g.training()) g.mem("router topk", Phase::backward, RE + Rk, E, "topk backward (scatter)");
  if (gpt_oss) {
    g.vec("router softmax", Op::softmax, R, k, OpKind::softmax);
    if (s.transformers_major < 5) {  // zeros_like(logits).scatter_(1, indices, values)
      const double i64 = g.mem_elements(kIndexBytes);
      g.mem("router scores", Phase::forward, RE, E, "zeros");
      g.mem("router scores", Phase::forward, 2 * Rk + Rk * i64, E, "scatter");
      if (g.training())
        g.mem("router scores", Phase::backward, 2 * Rk + Rk * i64, E, "gather (scatter backward)");
    }
  } else if (s.norm_topk) {
    g.mem("topk sum", Phase::forward, Rk + double(R), k, "sum");
    g.vec("topk renormalise", Op::div, R, k, OpKind::elementwise, 2);
  }
  if (every_expert)
    moe_detail::gpt_oss_all_experts(g, s, R);
  else if (s.implementation == ExpertsImplementation::grouped_mm)
    moe_detail::grouped_experts(g, s, R);
  else
    moe_detail::expert_loop(g, s, R);
  // Qwen2-MoE: sigmoid(shared_expert_gate(x)) * shared_expert(x); DeepSeek-V3: its shared
  // experts as one MLP, ungated
  if (s.shared_inner > 0) {
    const MlpSpec shared{.hidden = H,
                         .inner = s.shared_inner,
                         .names = {"shared gate_proj", "shared up_proj", "shared down_proj"},
                         .gated = true,
                         .act = s.act,
                         .act_name = "shared act"};
    mlp(g, shared, R);
    if (s.shared_gate) {
      g.linear("shared_expert_gate", R, H, 1, {.shares_input = true});
      g.vec("shared gate sigmoid", Op::gelu, R, 1, OpKind::elementwise, 1, "sigmoid");
      g.vec("shared gate scale", Op::mul, R, H, OpKind::elementwise, 2);
    }
    g.vec("shared + routed", Op::add, R, H, OpKind::elementwise);
  }
}

void sparse_or_dense(GraphBuilder& g, bool sparse, const MoeSpec& experts, const MlpSpec& dense,
                     std::int64_t rows) {
  if (sparse)
    moe(g, experts, rows);
  else
    mlp(g, dense, rows);
}

}  // namespace tilecast::detail
