// One row of traits per architecture (the table is architectures.cpp): what the config parser,
// the graph builders, the engines and serving memory need to know about a model family, written
// once. Code asks a row (`traits(model)`) instead of comparing `Architecture` values; adding an
// architecture is one row here plus, only when its forward pass is new, one builder file.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "tilecast/model_config.hpp"

namespace tilecast {

namespace detail {
class GraphBuilder;
}

// Which stacks the model has: only a decoder-only model can prefill, decode and be served.
enum class Stack { decoder_only, encoder, encoder_decoder };
// The layer norm: LayerNorm, RMSNorm, Gemma's RMSNorm scaled by (1 + weight), Cohere's
// LayerNorm spelt out in FP32 element-wise ops (mean, variance, rsqrt; a weight, no bias), or
// RMSNorm without a weight (Llama 4's L2 norm of q and k).
enum class Norm { layer, rms, rms_gemma, layer_fp32, rms_unweighted };
// Where token positions come from: a learned table, rotary (cos/sin) or T5's relative bias.
enum class Positions { learned, rotary, relative_bias };
// The feed-forward: fc -> act -> fc, or act(gate(x)) * up(x) -> down (SwiGLU, GeGLU).
enum class Ffn { dense, gated };
// Which projections carry a bias: none (T5); q/k/v/o and the MLP's always (GPT-2, BERT); as the
// config's bias field says (HfFields::bias_field: Llama's attention_bias, OPT's enable_bias);
// q/k/v always, o never (Qwen2); the MLP's only (GPT-J); q/k/v/o as the config's bias field
// says and the MLP's always (GPT-NeoX).
enum class AttentionBias { none, all, config, qkv_only, mlp_only, config_attention };
// Mixtures of experts: none; top-1 into capacity-sized buffers (Switch); top-k of SwiGLU experts
// (Mixtral); top-k plus always-on shared experts (Qwen2-MoE: one, scaled by a sigmoid gate;
// DeepSeek-V3: n_shared_experts, ungated).
enum class Routing { none, top1_capacity, top_k, top_k_shared };
// Whether tokens pick their top-k experts (Mixtral, the Qwen MoEs, gpt-oss), a shared one or not.
constexpr bool top_k_routing(Routing r) {
  return r == Routing::top_k || r == Routing::top_k_shared;
}
// The experts' form: SwiGLU experts of one projection dtype, no biases (Mixtral, the Qwen MoEs);
// gpt-oss's: the router a linear with a bias whose top-k logits are softmaxed over the k, each
// expert's projections with biases around a SwiGLU clamped at swiglu_limit over interleaved gate
// and up columns, the experts stacked in one weight (transformers 4 computing every expert on
// every token in inference); Llama 4's: the router's top-k logits through a sigmoid (no softmax),
// every expert run on every token (the input repeated per expert and scaled by its score, two
// torch.bmm over the stacked SwiGLU weights, a sum over the experts), in both releases.
enum class ExpertForm { swiglu, gpt_oss, llama4 };
// Which layers have experts: none; every layer; Hugging Face's decoder rule ((i + 1) %
// decoder_sparse_step == 0 and i not in mlp_only_layers: Qwen2-MoE); T5's rule (every layer when
// the step is 1, else i % step == 1: Switch's encoder and decoder steps); every layer after the
// first first_k_dense_replace (DeepSeek-V3); Llama 4's moe_layers list, or when absent every
// interleave_moe_layer_step-th ((i + 1) % step == 0: the decoder rule's test, the list read as
// its mlp_only_layers).
enum class MoeLayers { none, every, decoder_step, t5_step, after_dense, interleave };
// Which layers attend to a sliding window: none; the even ones (Gemma 2); all but every
// sliding_window_pattern-th (Gemma 3: five local layers, then a global one); or Llama 4's chunked
// local layers, all but every NoPE-interval-th (no_rope_layers), whose queries read the keys of
// their own attention_chunk_size chunk only (a sliding window's cache, fewer keys past a chunk).
enum class Sliding { none, even_layers, pattern, chunked };
// How the config spells its shapes: GPT-2's n_embd/n_layer/n_head, BERT's, OPT's (ffn_dim,
// word_embed_proj_dim), the Llama family's (num_key_value_heads, head_dim, intermediate_size
// required), T5's (d_model, d_kv, d_ff, num_heads), Falcon's (num_kv_heads or multi_query,
// new_decoder_architecture, parallel_attn, ffn_hidden_size).
enum class Dialect { gpt2, bert, opt, llama, t5, falcon };

// The per-architecture words of a Hugging Face config.json (docs/models.md).
struct HfFields {
  Dialect dialect = Dialect::llama;
  std::string_view activation_field = "hidden_act";  // its activation's field
  Activation activation = Activation::silu;          // when that field is absent
  bool tied_embeddings = false;                      // tie_word_embeddings when absent
  // the field that switches biases on (empty: fixed by the row), and its default
  std::string_view bias_field = "attention_bias";
  bool bias_default = false;
  std::string_view mlp_bias_field = "mlp_bias";  // empty: the MLP's bias follows bias_field
  std::string_view attention_dropout_field = "attention_dropout";
  double attention_dropout = 0;
  std::string_view hidden_dropout_field = {};  // empty: no residual dropout
  double hidden_dropout = 0;
  std::string_view experts_field = {};  // the expert count (empty: no experts)
  // top-k routing: each expert's width (empty: intermediate_size, Mixtral's; else that field,
  // required) and whether the top-k weights are renormalised (empty: always, Mixtral's; else
  // that field, false when absent: the Qwen MoEs)
  std::string_view expert_width_field = {};
  std::string_view norm_topk_field = {};
  // the dense MLP's width (Llama 4's intermediate_size_mlp; the expert's is intermediate_size)
  std::string_view mlp_width_field = "intermediate_size";
  // top_k_shared: the shared experts' count, each an expert's width (empty: the shared expert's
  // own width, in shared_width_field: Qwen2-MoE's shared_expert_intermediate_size, Hugging
  // Face's default 5632 when absent; Llama 4's intermediate_size, required)
  std::string_view shared_experts_field = {};
  std::string_view shared_width_field = "shared_expert_intermediate_size";
  // the scale the logits are multiplied by (empty: none; Cohere's logit_scale) and the switch of
  // per-head q and k norms (empty: the row's qk_norm decides; Cohere's use_qk_norm)
  std::string_view logit_scale_field = {};
  std::string_view qk_norm_field = {};
  // the share of each head's features rotary turns (empty: all, and partial_rotary_factor below 1
  // refused; GPT-NeoX's rotary_pct: int(head_dim x share) of them, as Hugging Face rounds it)
  std::string_view rotary_share_field = {};
  // a switch that, false, makes the row's parallel layer sequential, which is refused (empty:
  // none; GPT-NeoX's use_parallel_residual)
  std::string_view parallel_field = {};
  // JSON object: shape fields the config class defaults (its __init__) where a config may leave
  // them out, e.g. a vision-language model's text_config (Gemma 3's omits vocab_size)
  std::string_view defaults = "{}";
};

// A graph builder (graph/<builder>.cpp): the forward pass of a family of architectures.
using GraphBuildFn = void (*)(const ModelConfig&, detail::GraphBuilder&);

struct ArchitectureTraits {
  Architecture id = Architecture::gpt2;
  std::string_view model_type = {};  // Hugging Face model_type; also tilecast's name for it
  // matches the config's architectures[] (GPT2 -> GPT2LMHeadModel)
  std::string_view class_prefix = {};
  std::string_view family = {};  // what people call the family (the page's model picker groups)
  Stack stack = Stack::decoder_only;
  Norm norm = Norm::rms;
  bool sandwich_norms = false;     // a norm after attention and around the MLP: 4 a layer (Gemma 2)
  bool parallel_residual = false;  // attention and MLP read one normed input and their outputs
                                   // are added to the residual together (GPT-J)
  // a parallel layer's norms: 1 (one feeds both) or 2 (each its own: GPT-NeoX); Falcon's config
  // says (ModelConfig::parallel_norms)
  int parallel_norms = 1;
  Positions positions = Positions::rotary;
  bool fused_qkv = false;        // one hidden -> q+k+v GEMM (GPT-2's c_attn, Phi-3's qkv_proj)
  bool qk_norm = false;          // q and k normed per head (the row's norm) before rotary (Qwen3)
  bool fp32_rotary = false;      // q and k cast to FP32 for rotary and back (Cohere)
  bool attention_sinks = false;  // a learned logit per head joins each softmax (gpt-oss)
  // multi-head latent attention: q and k/v through low-rank latents, the latent cached
  // (DeepSeek-V3)
  bool latent_attention = false;
  // the q and k norms have no weight (Llama 4's L2 norm; its config's use_qk_norm asks for them)
  bool qk_norm_unweighted = false;
  // rotary as one complex multiply of q's and k's feature pairs by the table, in FP32 (Llama 4's
  // view_as_complex): a pure half forward casts in and out around it
  bool complex_rotary = false;
  // the global (non-sliding) layers take no positions: no rotary, no q/k norm, each query scaled
  // by a temperature of its position where the config asks (Llama 4's NoPE layers)
  bool global_nope = false;
  AttentionBias attention_bias = AttentionBias::config;
  Ffn ffn = Ffn::gated;
  bool fused_gate_up = false;  // gate and up as one GEMM (Phi-3's gate_up_proj)
  Routing routing = Routing::none;
  bool shared_expert_gate = true;  // top_k_shared: the shared experts scaled by a sigmoid gate
  ExpertForm experts = ExpertForm::swiglu;
  MoeLayers moe_layers = MoeLayers::none;
  Sliding sliding = Sliding::none;
  // the sliding layers rotate at their own base: a second cos/sin table each forward (Gemma 3)
  bool local_rotary = false;
  bool scaled_embeddings = false;  // the embeddings multiplied by sqrt(hidden) (Gemma)
  bool softcapping = false;        // scores x query_pre_attn_scalar^-1/2, soft-capped; logits
                                   // soft-capped (Gemma 2)
  HfFields hf = {};
  GraphBuildFn build = nullptr;  // the eager forward pass
  std::string_view builder_file =
      {};  // where that builder is (graph/<file>), for readers and tests
};

// Every architecture, in the order the "supported" lists name them.
std::span<const ArchitectureTraits> architecture_table();
// The row of an architecture, or of a model's.
const ArchitectureTraits& traits(Architecture a);
inline const ArchitectureTraits& traits(const ModelConfig& m) { return traits(m.architecture); }
// The model_type names of the rows whose stack is `s`, comma-separated ("gpt2, opt, llama, ...").
std::string architecture_names(Stack s);
// "an encoder", "an encoder-decoder", "decoder-only".
std::string_view stack_name(Stack s);

// Whether the output projection has a bias (AttentionBias).
bool out_proj_bias(const ModelConfig& m);
// The features of each query and key head that rotary rotates (GPT-J's rotary_dim; else all).
std::int64_t rotary_features(const ModelConfig& m);
// Whether q and k are normed per head before rotary: the row's qk_norm, or its config's switch.
bool qk_norm(const ModelConfig& m);
// Whether a layer of one kind (`local`: a sliding-window or chunked layer) rotates q and k, and
// norms them per head: a rotary row's every layer, but a global_nope row's local layers only.
bool rotary_layer(const ModelConfig& m, bool local);
bool qk_norm_layer(const ModelConfig& m, bool local);

}  // namespace tilecast
