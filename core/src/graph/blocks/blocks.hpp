// The transformer pieces every architecture builder shares, each parameterised by
// what differs between the Hugging Face modules (fused or separate projections,
// how scores are scaled and masked, rotary, grouped-query heads, gated MLPs, the
// activation), so a builder describes its variant in a few lines and gets exactly
// the kernels its module launches in eager mode. Query and key lengths are separate
// (a decode step attends one new token to a cache of keys).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string_view>

#include "graph/builder.hpp"
#include "model/architectures.hpp"

namespace tilecast::detail {

// ---- activation (activation.cpp) ----
// act(x) over rows x width: gelu, relu, SiLU (forecast as gelu), or gelu_new (the
// tanh approximation) spelt out in the eight element-wise ops eager PyTorch runs.
void activation(GraphBuilder& g, std::string_view name, Activation a, std::int64_t rows,
                std::int64_t width);

// ---- norms (norm.cpp; the kinds are the architecture table's Norm) ----
// LayerNorm: forward ln; backward the input gradient and the gamma/beta gradient
// (both mul class); weight and bias accumulation. RMSNorm (Llama, T5) as eager
// PyTorch runs it: pow, mean, add eps, rsqrt, mul, weight mul.
void norm(GraphBuilder& g, Norm kind, std::string_view name, std::int64_t rows, std::int64_t h);

// ---- attention (attention.cpp) ----
enum class Scaling {
  scores_div_tensor,  // scores / full((), sqrt(d)): one gradient (GPT-2)
  scores_divu,        // scores / sqrt(d) (BERT, Llama)
  scores_mulu,        // scores * scaling (Gemma 2)
  query_mulu,         // q_proj(x) * scaling, right after the projection (OPT)
  none,               // folded into the initialisation (T5)
};
enum class Mask {
  where,          // torch.where(causal_mask, scores, min): a copy (GPT-2)
  add,            // scores + additive mask (BERT, Llama)
  add_clamp,      // + mask, then torch.max(scores, finfo.min) (OPT)
  position_bias,  // scores + relative position bias with the mask folded in (T5)
};

struct AttentionSpec {
  std::int64_t hidden = 0;    // the projections' input and the output width
  std::int64_t heads = 0;     // query heads
  std::int64_t kv_heads = 0;  // key/value heads; fewer than heads: grouped-query (repeat_kv)
  std::int64_t head_dim = 0;
  // module names of the q, k, v and output projections (fused: q's name)
  std::array<std::string_view, 4> names{"q_proj", "k_proj", "v_proj", "o_proj"};
  bool fused_qkv = false;  // one hidden -> q+k+v GEMM (GPT-2's c_attn)
  bool qkv_bias = false;
  bool out_bias = false;
  Scaling scaling = Scaling::scores_divu;
  Mask mask = Mask::add;
  bool rotary = false;  // q*cos + rotate_half(q)*sin on q and k (Llama)
  // the features of each head rotary rotates (0: all); fewer: the rotated part is concatenated
  // back to the rest (GPT-J's rotary_dim)
  std::int64_t rotary_dim = 0;
  bool qk_norm = false;  // q and k normed per head over head_dim before rotary (Qwen3)
  Norm qk_norm_kind = Norm::rms;
  // q and k cast to FP32 for rotary and back (Cohere's apply_rotary_pos_emb): in a pure half
  // forward four casts, the rotary's kernels in FP32
  bool fp32_rotary = false;
  // rotary as Llama 4's apply_rotary_emb: q's and k's feature pairs viewed as complex numbers and
  // multiplied by the table in FP32 (one kernel each; a pure half forward casts in and out)
  bool complex_rotary = false;
  // Llama 4's NoPE layers: each query scaled by log1p(floor((position + 1) / floor_scale)) x
  // attn_scale + 1, computed over the positions (seven small kernels), then one product over q
  // (FP32 in a pure half forward, cast back)
  bool temperature = false;
  bool per_head_copies = false;  // k, v and q made contiguous per head (OPT)
  double dropout = 0;            // on the attention probabilities
  double out_dropout = 0;        // after the output projection, before the residual add
  // the copy of the heads back to rows (transpose + contiguous): its name, the
  // class it is listed as, and its row width (hidden or head_dim)
  std::string_view out_copy = "contiguous";
  std::string_view out_copy_as = "contiguous";
  std::int64_t out_copy_width = 0;
  bool cross = false;  // keys and values from an encoder's states (T5 decoder)
  double softcap = 0;  // > 0: scores = softcap * tanh(scores / softcap) (Gemma 2)
  // softmax(scores, dtype=float32).to(query.dtype) (the Llama family's eager attention): in a
  // pure half forward the probabilities are FP32, then cast back (GraphBuilder::fp32_islands)
  bool fp32_probabilities = false;
  // gpt-oss: each head's learned logit (a sink) joins every row's softmax as a last column,
  // the row's max subtracted first; P V reads the probabilities without that column
  bool sinks = false;
  // multi-head latent attention (DeepSeek-V3), when kv_rank > 0: q through q_a_proj, an RMSNorm
  // and q_b_proj (q_rank 0: one q_proj); k and v from a kv_rank latent per token
  // (kv_a_proj_with_mqa, which also gives one rotary key of rope_dim features shared by the
  // heads), normed and up-projected (kv_b_proj); rotary on the rope_dim features of q and of
  // that key only; each head's value v_dim wide (head_dim: q's and k's)
  struct Latent {
    std::int64_t q_rank = 0, kv_rank = 0, rope_dim = 0, v_dim = 0;
  } latent{};
};

// From the q/k/v projections to the residual add (the norm before it is the
// caller's), for `batch` sequences of q_len queries attending to kv_len keys.
void attention(GraphBuilder& g, const AttentionSpec& a, std::int64_t batch, std::int64_t q_len,
               std::int64_t kv_len);

// ---- MLP (mlp.cpp) ----
struct MlpSpec {
  std::int64_t hidden = 0;
  std::int64_t inner = 0;
  // module names: input projection, up projection (gated only), output projection
  std::array<std::string_view, 3> names{"fc1", "", "fc2"};
  bool gated = false;          // act(gate(x)) * up(x) (SwiGLU)
  bool fused_gate_up = false;  // gate and up as one hidden -> 2 x inner GEMM (Phi-3's gate_up_proj)
  bool bias = false;
  Activation act = Activation::gelu;
  std::string_view act_name = "act";
  double inner_dropout = 0;    // after the activation (T5)
  bool routed_expert = false;  // a routed expert's MLP (its linears: GraphOp::routed_expert)
};

// The feed-forward GEMMs and activation over `rows` rows (no residual).
void mlp(GraphBuilder& g, const MlpSpec& s, std::int64_t rows);

// ---- mixture of experts (moe.cpp) ----
struct MoeSpec {
  std::int64_t hidden = 0;
  std::int64_t experts = 0;
  std::int64_t top_k = 0;
  std::int64_t expert_inner = 0;  // one expert's gated MLP width
  // the GPUs the experts are spread over (ModelConfig::expert_shards): routed_experts answers for
  // one GPU's experts, of the rows of all of them
  std::int64_t shards = 1;
  bool norm_topk = false;  // the top-k weights renormalised (Mixtral)
  Activation act = Activation::silu;
  std::int64_t shared_inner =
      0;                       // > 0: a shared gated expert scaled by sigmoid(gate(x)) (Qwen2-MoE)
  int transformers_major = 4;  // ModelConfig::transformers_major: the eager expert loop's release
  ExpertsImplementation implementation = ExpertsImplementation::eager;  // ModelConfig's
  ExpertForm form = ExpertForm::swiglu;  // the architecture's (model/architectures.hpp)
  bool shared_gate = true;  // the shared expert scaled by a sigmoid gate (false: DeepSeek-V3's)
};
// The experts `rows` tokens reach when each row's top_k experts are drawn uniformly and
// independently, and the rows each computes: `active` = experts x (1 - (1 - top_k /
// experts)^rows), rounded, at most rows x top_k (the expectation; one row: exactly its top_k);
// the rows x top_k assignments shared among them as evenly as whole rows allow, the first
// `heavier` one more than the rest.
struct RoutedExperts {
  std::int64_t active = 1, fewest = 1, heavier = 0;
  // the rows active expert `e` (0 to active - 1) computes
  std::int64_t rows(std::int64_t e) const { return fewest + (e < heavier ? 1 : 0); }
  // the most rows any computes: every group's rows in a grouped GEMM kernel of equal groups
  std::int64_t most() const { return rows(0); }
};
RoutedExperts routed_experts(const MoeSpec& s, std::int64_t rows);
// The Hugging Face eager sparse MoE block over `rows` rows (no residual): router linear,
// softmax (FP32), top-k, one-hot expert mask, then per active expert a gather of its tokens,
// its gated MLP at the routed rows, the routing-weight scale and an index_add back.
void moe(GraphBuilder& g, const MoeSpec& s, std::int64_t rows);
// A layer's feed-forward in a model of sparse and dense layers (Mixtral's kin, Llama 4): the
// mixture of experts where the layer has them, else the dense MLP.
void sparse_or_dense(GraphBuilder& g, bool sparse, const MoeSpec& experts, const MlpSpec& dense,
                     std::int64_t rows);
// torch.nonzero on CUDA over `mask` elements (of `width` per row) writing `found` indices of
// `dims` int64 coordinates: a counting pass, the count copied to the host (a synchronisation,
// GraphBuilder::host_sync), the writing pass. The eager expert loops' torch.where.
void nonzero(GraphBuilder& g, std::string_view name, double mask, std::int64_t width, double found,
             double dims);
// An expert's output into its tokens' rows, as the eager expert loops add it back:
// routing_weights[top_x, idx, None] (its backward an index_put into `weight_elements` zeros),
// the scale, index_add_. Returns the routing-weight index op.
OpRef expert_combine(GraphBuilder& g, std::int64_t rows, std::int64_t hidden,
                     double weight_elements);

// ---- the Switch Transformers sparse MLP (switch_moe.cpp) ----
struct SwitchMoeSpec {
  std::int64_t hidden = 0;
  std::int64_t experts = 0;
  std::int64_t expert_inner = 0;  // one expert's MLP width (d_ff)
  Activation act = Activation::relu;
  double dropout = 0;              // after the expert's activation (T5)
  std::int64_t capacity_rows = 0;  // transformers 4: each expert's buffer (capacity x batch)
  int transformers_major = 4;      // ModelConfig::transformers_major
};
// The sparse MLP over `rows` tokens (no norm, no residual): the router, then per expert its
// tokens gathered (transformers 4: its capacity buffer; 5: its share of the tokens under
// uniform routing, routed_experts), its MLP and the result put back, with transformers 5's host
// synchronisations.
void switch_sparse_mlp(GraphBuilder& g, const SwitchMoeSpec& s, std::int64_t rows);

// Dropout (p may be 0) and the residual add over rows x h.
void residual(GraphBuilder& g, double dropout, std::int64_t rows, std::int64_t h);

// ---- the Llama-family stack (decoder.cpp) ----

// The attention every Llama-family model starts from: the config's heads, KV heads and head
// dim, rotary (Llama 4's complex form where its row says), its attention dropout, q/k/v and
// output biases as the row's AttentionBias says, one qkv_proj GEMM when the row's fused_qkv says
// so, q and k normed per head as its row and config say (without a weight: Llama 4's).
AttentionSpec rotary_attention(const ModelConfig& m);
// A SwiGLU-style gated MLP (gate_proj, up_proj, down_proj; act_fn) of `inner` features; one
// gate_up_proj GEMM when the row's fused_gate_up says so.
MlpSpec gated_mlp(const ModelConfig& m, std::int64_t inner);
// The config's top-k mixture of experts in its row's form (Mixtral, the Qwen MoEs, gpt-oss).
MoeSpec moe_spec(const ModelConfig& m);
// How many of the model's layers `pick` says (is_moe_layer, is_sliding_layer).
std::int64_t count_layers(const ModelConfig& m, bool (*pick)(const ModelConfig&, std::int64_t));
// The keys a layer's queries attend to: the context, but a decode step on a sliding-window layer
// at most the window (the cache keeps only the window: Gemma 2, gpt-oss).
std::int64_t attended_keys(const ModelConfig& m, const GraphBuilder& g, bool sliding);
// fc -> act -> fc at the config's width, activation and MLP bias (GPT-J, Falcon), with the
// module names of the two projections (names[1] unused).
MlpSpec dense_mlp(const ModelConfig& m, const std::array<std::string_view, 3>& names);

// One pre-norm decoder layer as the Llama-family modeling files write it: input_layernorm,
// self-attention over `keys`, post_attention_layernorm (none where the row's residual is parallel:
// Cohere's MLP reads the input norm too), the feed-forward `ffn` builds, the residual add with
// dropout p (may be 0); norms of the row's kind.
void prenorm_layer(GraphBuilder& g, const ModelConfig& m, const AttentionSpec& attn,
                   std::int64_t keys, double dropout, const std::function<void()>& ffn);
// The final norm of the row's kind and the LM head (tied where the config says) over every row.
void decoder_head(GraphBuilder& g, const ModelConfig& m);

// Token embedding and rotary tables; num_layers of (norm, attention, norm, MLP, residual); the
// final norm and LM head, the norms of the row's kind. Llama, Mistral, Qwen2 and Phi-3 differ
// only in `attn` and `mlp`.
void rotary_decoder(GraphBuilder& g, const ModelConfig& m, const AttentionSpec& attn,
                    const MlpSpec& mlp_spec);

}  // namespace tilecast::detail
