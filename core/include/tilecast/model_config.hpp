// A transformer's shape as read from a Hugging Face config.json: the few numbers
// the operator graph needs, validated (architecture detected from
// `architectures` / `model_type`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilecast {

enum class Architecture {
  gpt2,
  bert,
  opt,
  llama,
  mistral,
  qwen2,
  switch_transformers,
  mixtral,      // Llama layers with a top-k mixture of SwiGLU experts
  qwen2_moe,    // Qwen2 layers with top-k experts plus a gated shared expert
  gemma,        // Llama-like: GeGLU, (1 + w) RMSNorm, scaled embeddings, tied head
  gemma2,       // Gemma + sliding-window attention on alternate layers, soft-capping, 4 norms
  phi3,         // Llama-like with fused qkv_proj and gate_up_proj
  qwen3,        // Llama-like with q and k RMS-normed per head before rotary
  gptj,         // attention and MLP in parallel on one LayerNorm, rotary on part of each head
  falcon,       // attention (multi- or grouped-query, fused qkv) and MLP in parallel, 1 or 2 norms
  qwen3_moe,    // Qwen3's attention (q and k normed per head) with top-k experts, no shared expert
  gpt_oss,      // top-k experts with biases, attention sinks, sliding windows on alternate layers
  gemma3_text,  // Gemma 2's layer with q and k normed per head, 5 sliding layers to 1 global
  deepseek_v3,  // multi-head latent attention, top-k experts plus shared ones after dense layers
  cohere,       // attention and MLP in parallel on one FP32 LayerNorm, logits scaled (Command R)
  gpt_neox,     // attention and MLP in parallel on two LayerNorms, rotary on part of each head
  llama4_text,  // chunked local attention (rotary) and global NoPE layers, top-1 experts + shared
  glm4_moe,  // Llama's layer, half-rotary, q/k norms by config, top-k + shared after dense layers
};

std::string_view architecture_name(Architecture a);
// "gpt2, bert, opt, llama, mistral, qwen2, switch_transformers, mixtral, qwen2_moe, gemma, ..."
std::string supported_architectures();

enum class Activation { gelu, gelu_new, relu, silu };

// How Hugging Face transformers runs a top-k mixture's experts (its `experts_implementation`):
// the eager loop over experts (transformers 4's only way; transformers 5's when asked for) or
// grouped_mm (transformers 5's default: the token-expert pairs sorted by expert, one
// torch._grouped_mm per projection). graph/blocks/moe.cpp, docs/models.md.
enum class ExpertsImplementation { eager, grouped_mm };
// Its name ("eager", "grouped_mm"; the table: experts_implementation_names(),
// tilecast/enum_names.hpp).
std::string_view experts_implementation_name(ExpertsImplementation e);

struct ModelConfig {
  std::string id;    // zoo id (file stem) or empty for ad-hoc configs
  std::string name;  // display name (tilecast_name, else _name_or_path, else the architecture)
  std::vector<std::string> aliases;
  std::string source;      // tilecast_source
  std::string model_type;  // as written in the config
  // A vision-language config (Gemma 3's "gemma3", Llava's, ...) is read as its language model,
  // its text_config: the outer model_type here, empty otherwise (the vision tower is not forecast)
  std::string language_model_of;
  // How the checkpoint stores its weights: its quantization_config's quant_method ("mxfp4":
  // gpt-oss's experts), empty when unquantized; serving's default weights (serving.hpp).
  std::string checkpoint_weights;
  Architecture architecture = Architecture::gpt2;
  std::int64_t hidden_size = 0;
  std::int64_t num_layers = 0;          // decoder layers (encoder layers for bert/switch)
  std::int64_t num_decoder_layers = 0;  // switch only
  std::int64_t num_heads = 0;
  std::int64_t num_kv_heads = 0;  // = num_heads unless grouped-query attention
  std::int64_t head_dim = 0;      // hidden_size / num_heads (switch: d_kv)
  std::int64_t rotary_dim = 0;    // features of each head rotary rotates (gptj, gpt_neox); 0: all
  // the norms of a parallel block: 1 (one feeds attention and the MLP: GPT-J, Falcon 7B) or 2
  // (each its own: Falcon's new decoder architecture, ln_attn and ln_mlp; GPT-NeoX)
  std::int64_t parallel_norms = 1;
  std::int64_t intermediate_size = 0;  // MLP width (llama4_text: its dense layers')
  std::int64_t vocab_size = 0;
  std::int64_t max_positions = 0;    // rows of a learned position table (0: none)
  std::int64_t max_context = 0;      // tokens the model was trained for (max_position_embeddings,
                                     // n_positions); 0 when the config states none
  std::int64_t type_vocab_size = 0;  // bert token types
  std::int64_t word_embed_proj_dim = 0;  // opt: projection around the decoder when != hidden
  Activation activation = Activation::gelu;
  bool attention_bias = false;  // q/k/v/o carry biases
  bool mlp_bias = false;
  double attention_dropout = 0;  // probability; 0 means no dropout kernel
  double hidden_dropout = 0;
  // mixtures of experts (switch_transformers, mixtral, qwen2_moe)
  std::int64_t num_experts = 0;
  std::int64_t experts_per_token = 0;         // top-k (switch: 1)
  std::int64_t expert_intermediate_size = 0;  // one expert's MLP width (mixtral: intermediate_size)
  std::int64_t shared_expert_intermediate_size = 0;  // qwen2_moe's always-on expert; 0: none
  bool norm_topk_prob = false;                       // the top-k weights renormalised to sum 1
  std::vector<std::int64_t> mlp_only_layers;         // qwen2_moe: layers with a dense MLP
  // gemma2, gemma3_text, gpt_oss; llama4_text's chunked layers (attention_chunk_size)
  std::int64_t sliding_window = 0;  // keys a sliding layer attends to (0: every layer global)
  // Gemma 3: layer i is global when (i + 1) % this == 0, else sliding (0: not that rule); Llama
  // 4: its NoPE interval (a chunked layer unless (i + 1) % this == 0)
  std::int64_t sliding_window_pattern = 0;
  double attn_logit_softcap = 0;     // scores = cap * tanh(scores / cap); 0: none
  double final_logit_softcap = 0;    // the same on the logits
  double query_pre_attn_scalar = 0;  // scores scaled by its -1/2 power (0: head_dim)
  double logit_scale = 0;            // > 0: the logits multiplied by it (Cohere); 0: none
  // q and k normed per head before rotary by the config (Cohere's use_qk_norm); a row's
  // qk_norm trait norms them always (qk_norm(m) in model/architectures.hpp answers both)
  bool config_qk_norm = false;
  // Llama 4: the global (NoPE) layers scale each query by a temperature of its position
  // (attn_temperature_tuning)
  bool attn_temperature = false;
  // multi-head latent attention (deepseek_v3): q through a q_lora_rank bottleneck (0: one q_proj),
  // k and v from a kv_lora_rank latent per token (what an engine caches, with the shared rotary
  // key of qk_rope_head_dim features); head_dim is q's and k's per head (nope + rope), v_head_dim
  // v's. kv_lora_rank 0: ordinary attention.
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  // the first layers with a dense MLP before the experts' layers (first_k_dense_replace)
  std::int64_t first_dense_layers = 0;
  std::int64_t expert_capacity = 0;
  // One GPU's share of the routed experts under serving's expert parallelism (serve/
  // expert_parallel.hpp): num_experts / expert_shards of them on each GPU, each computing the
  // rows every GPU's tokens route to it; num_experts still counts all (the router's width).
  std::int64_t expert_shards = 1;
  std::int64_t encoder_sparse_step = 0;
  std::int64_t decoder_sparse_step = 0;
  bool tie_word_embeddings = false;
  // The major release of Hugging Face transformers whose eager modules the graph follows where
  // releases differ (the expert loops: graph/blocks/switch_moe.cpp, graph/blocks/moe.cpp): 4 (the
  // default; NeuSight's labels) or 5. From the config's "tilecast_transformers_version"
  // (e.g. "5.17.0", the version a measurement ran; eval-e2e takes it from a label set's
  // machine.json).
  int transformers_major = 4;
  // A top-k mixture's experts as that release runs them: the config's
  // "tilecast_experts_implementation" ("eager" or "grouped_mm"; transformers 5 only), else the
  // release's default (4: eager, 5: grouped_mm).
  ExpertsImplementation experts_implementation = ExpertsImplementation::eager;

  double params() const;  // parameter count
};

// Switch Transformers: whether block i of a stack with this sparse step is a
// mixture-of-experts block (the Hugging Face rule: every block when the step is 1,
// else blocks with i % step == 1).
bool is_sparse_layer(std::int64_t sparse_step, std::int64_t i);

// Whether decoder layer i of a decoder-only model has a mixture of experts: mixtral every layer,
// qwen2_moe unless listed in mlp_only_layers and when (i + 1) % decoder_sparse_step == 0 (the
// Hugging Face rule; llama4_text's moe_layers and interleave_moe_layer_step read into it).
// False for the dense architectures (switch: is_sparse_layer).
bool is_moe_layer(const ModelConfig& m, std::int64_t i);
// Whether decoder layer i attends to a sliding window: Gemma 2's and gpt-oss's even layers,
// Gemma 3's all but every sliding_window_pattern-th, Llama 4's chunked layers (all but every
// NoPE-interval-th: a chunk is the window the cache keeps); never without a window.
bool is_sliding_layer(const ModelConfig& m, std::int64_t i);
// How many of the decoder layers attend to a sliding window (is_sliding_layer).
std::int64_t sliding_layer_count(const ModelConfig& m);

// Parses a config.json. `origin` (a file name, "model config") prefixes every
// error. Throws tilecast::Error naming the field or listing the supported architectures.
ModelConfig parse_model_config(std::string_view json_text, std::string_view origin);

// A model by its sizes (docs/megatron.md, "Models by their sizes"): a JSON object with hidden,
// layers, heads, vocab (required), query_groups, ffn, seq, head_dim, mlp (swiglu | gelu),
// positions (rotary | learned), tied, dropout, name. Built as the architecture table's first
// dense decoder with that MLP and those positions. Errors name the size and what is allowed.
ModelConfig model_from_sizes(std::string_view json_text, std::string_view origin);

}  // namespace tilecast
