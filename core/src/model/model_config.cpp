// Reading a Hugging Face config.json into a ModelConfig: the shapes in the spelling of the
// architecture's dialect, the rest as its row of the architecture table says (architectures.cpp).
#include "tilecast/model_config.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string_view>

#include "common/format.hpp"
#include "common/json_fields.hpp"
#include "model/architectures.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/serving.hpp"

namespace tilecast {
namespace {

constexpr long long kMaxSize = 1LL << 31;

// rope_scaling types: each changes only how the cos/sin tables are computed, not the kernels.
constexpr std::string_view kRopeTypes[] = {"default",  "linear", "dynamic", "yarn",
                                           "longrope", "su",     "llama3"};

// The first of `names` present in `obj` (HF configs spell the same thing several ways).
std::string first_present(const nlohmann::json& obj, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (detail::has_field(obj, n)) return n;
  return *names.begin();
}

// Layers a config may have (the work budget refuses deep models' forecasts long before).
constexpr std::int64_t kMaxLayers = 100000;
// Experts a mixture may have: the graph lists each expert's kernels (Switch) or each active
// one's (top-k), and building it is not part of the work budget's estimate (the largest
// released MoE has 256).
constexpr std::int64_t kMaxExperts = 4096;

std::int64_t size_field(const nlohmann::json& obj, std::initializer_list<const char*> names,
                        std::string_view origin, std::int64_t max = kMaxSize) {
  return detail::integer_field(obj, first_present(obj, names), origin, 1, max);
}

std::int64_t optional_size(const nlohmann::json& obj, std::initializer_list<const char*> names,
                           std::string_view origin, std::int64_t fallback,
                           std::int64_t max = kMaxSize) {
  const std::string f = first_present(obj, names);
  if (!detail::has_field(obj, f)) return fallback;
  return detail::integer_field(obj, f, origin, 1, max);
}

double optional_prob(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                     double fallback) {
  if (field.empty() || !detail::has_field(obj, field)) return fallback;
  return detail::number_field(obj, field, origin, 0, 1);
}

Activation parse_activation(const nlohmann::json& obj, std::string_view field,
                            std::string_view origin, Activation fallback) {
  const std::string s = detail::string_field(obj, field, origin, false);
  if (s.empty()) return fallback;
  if (s == "gelu" || s == "gelu_python" || s == "gelu_pytorch_tanh" || s == "gelu_fast" ||
      s == "quick_gelu")
    return Activation::gelu;
  if (s == "gelu_new") return Activation::gelu_new;
  if (s == "relu") return Activation::relu;
  if (s == "silu" || s == "swish") return Activation::silu;
  throw Error(std::string(origin) + ": field '" + std::string(field) + "' is '" + s +
              "'; supported: gelu, gelu_new, relu, silu");
}

Architecture detect(const nlohmann::json& j, std::string_view origin, std::string& model_type) {
  model_type = detail::string_field(j, "model_type", origin, false);
  for (const auto& a : architecture_table())
    if (model_type == a.model_type) return a.id;
  if (detail::has_field(j, "architectures")) {
    const auto& list = j.at("architectures");
    if (!list.is_array())
      throw Error(std::string(origin) + ": field 'architectures' must be an array of strings");
    for (const auto& c : list) {
      if (!c.is_string()) continue;
      const std::string cls = c.get<std::string>();
      // the longest prefix: Qwen2MoeForCausalLM is not Qwen2's
      const ArchitectureTraits* best = nullptr;
      for (const auto& a : architecture_table())
        if (cls.rfind(a.class_prefix, 0) == 0 && cls.size() > a.class_prefix.size() &&
            std::isupper(static_cast<unsigned char>(cls[a.class_prefix.size()])) &&
            (!best || a.class_prefix.size() > best->class_prefix.size()))
          best = &a;
      if (best) {
        if (model_type.empty()) model_type = std::string(best->model_type);
        return best->id;
      }
    }
  }
  std::string what = model_type.empty() ? std::string("no 'model_type' or known 'architectures'")
                                        : "model_type '" + model_type + "'";
  throw Error(std::string(origin) + ": unsupported architecture (" + what +
              "); supported: " + supported_architectures());
}

void check_heads(const ModelConfig& m, std::string_view origin, const char* heads_field) {
  if (m.hidden_size % m.num_heads != 0)
    throw Error(std::string(origin) + ": field '" + heads_field + "' (" +
                std::to_string(m.num_heads) + ") does not divide the hidden size (" +
                std::to_string(m.hidden_size) + ")");
}

// A quantized checkpoint's format (quantization_config.quant_method): one serving models
// (serving.hpp checkpoint_quant_methods), else an error naming what to do instead.
std::string checkpoint_weights(const nlohmann::json& j, std::string_view origin) {
  if (!detail::has_field(j, "quantization_config")) return "";
  const std::vector<std::string_view> known = checkpoint_quant_methods();
  std::string allowed;
  for (std::string_view k : known) allowed += (allowed.empty() ? "" : ", ") + std::string(k);
  const nlohmann::json& q = j.at("quantization_config");
  const std::string method =
      q.is_object() ? detail::string_field(q, "quant_method",
                                           std::string(origin) + ": quantization_config", false)
                    : "";
  if (std::find(known.begin(), known.end(), method) == known.end())
    throw Error(std::string(origin) + ": field 'quantization_config' (quant_method '" + method +
                "') is not modelled; allowed: " + allowed +
                " (gpt-oss's experts). Remove the field to forecast the unquantized model, and "
                "choose a serving request's weights (int8, int4) or precision (fp8, fp4)");
  return method;
}

// Fields that would change the kernels but are not modelled: an error naming them.
void check_unsupported(const nlohmann::json& j, std::string_view origin) {
  if (detail::has_field(j, "rope_scaling")) {
    const auto& r = j.at("rope_scaling");
    if (!r.is_object())
      throw Error(std::string(origin) + ": field 'rope_scaling' must be an object or null");
    std::string type = detail::string_field(r, "rope_type", origin, false);
    if (type.empty()) type = detail::string_field(r, "type", origin, false);
    bool known = type.empty();
    std::string allowed;
    for (std::string_view t : kRopeTypes) {
      known = known || type == t;
      allowed += (allowed.empty() ? "" : ", ") + std::string(t);
    }
    if (!known)
      throw Error(std::string(origin) + ": field 'rope_scaling' has type '" + type +
                  "'; supported: " + allowed);
  }
}

double optional_number(const nlohmann::json& obj, const char* field, std::string_view origin,
                       double fallback) {
  if (!detail::has_field(obj, field)) return fallback;
  return detail::number_field(obj, field, origin, 0, 1e9);
}

std::int64_t optional_step(const nlohmann::json& obj, const char* field, std::string_view origin,
                           long long min) {
  return detail::has_field(obj, field) ? detail::integer_field(obj, field, origin, min, kMaxSize)
                                       : 1;
}

// ---- the shapes, in each dialect's spelling ----

void read_gpt2_shape(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.hidden_size = size_field(j, {"n_embd", "hidden_size"}, origin);
  m.num_layers = size_field(j, {"n_layer", "num_hidden_layers"}, origin, kMaxLayers);
  m.num_heads = size_field(j, {"n_head", "num_attention_heads"}, origin);
  m.vocab_size = size_field(j, {"vocab_size"}, origin);
  check_heads(m, origin, detail::has_field(j, "n_head") ? "n_head" : "num_attention_heads");
  m.intermediate_size = optional_size(j, {"n_inner"}, origin, 4 * m.hidden_size);
  m.max_positions = optional_size(j, {"n_positions", "n_ctx"}, origin, 1024);
  m.max_context = m.max_positions;
}

// The four sizes most Hugging Face configs name alike.
void read_hf_sizes(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.hidden_size = size_field(j, {"hidden_size"}, origin);
  m.num_layers = size_field(j, {"num_hidden_layers"}, origin, kMaxLayers);
  m.num_heads = size_field(j, {"num_attention_heads"}, origin);
  m.vocab_size = size_field(j, {"vocab_size"}, origin);
}

void read_bert_shape(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  read_hf_sizes(j, origin, m);
  check_heads(m, origin, "num_attention_heads");
  m.intermediate_size = optional_size(j, {"intermediate_size"}, origin, 4 * m.hidden_size);
  m.max_positions = optional_size(j, {"max_position_embeddings"}, origin, 512);
  m.max_context = m.max_positions;
  m.type_vocab_size = optional_size(j, {"type_vocab_size"}, origin, 2);
}

void read_opt_shape(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  read_hf_sizes(j, origin, m);
  check_heads(m, origin, "num_attention_heads");
  m.intermediate_size = optional_size(j, {"ffn_dim"}, origin, 4 * m.hidden_size);
  m.word_embed_proj_dim = optional_size(j, {"word_embed_proj_dim"}, origin, m.hidden_size);
  m.max_context = optional_size(j, {"max_position_embeddings"}, origin, 2048);
  m.max_positions = m.max_context + 2;  // OPT's table is offset by 2
}

// `mlp_width`: the dense MLP's width field (intermediate_size; Llama 4's intermediate_size_mlp).
void read_llama_shape(const nlohmann::json& j, std::string_view origin, ModelConfig& m,
                      std::string_view mlp_width) {
  read_hf_sizes(j, origin, m);
  m.intermediate_size = size_field(j, {std::string(mlp_width).c_str()}, origin);
  m.num_kv_heads = optional_size(j, {"num_key_value_heads"}, origin, m.num_heads);
  m.max_context = optional_size(j, {"max_position_embeddings"}, origin, 0);
  if (m.num_heads % m.num_kv_heads != 0)
    throw Error(std::string(origin) + ": field 'num_key_value_heads' (" +
                std::to_string(m.num_kv_heads) + ") does not divide num_attention_heads (" +
                std::to_string(m.num_heads) + ")");
  if (detail::has_field(j, "head_dim"))
    m.head_dim = detail::integer_field(j, "head_dim", origin, 1, kMaxSize);
  else
    check_heads(m, origin, "num_attention_heads");
}

void read_t5_shape(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.hidden_size = size_field(j, {"d_model", "hidden_size"}, origin);
  m.num_layers = size_field(j, {"num_layers"}, origin, kMaxLayers);
  m.num_decoder_layers = optional_size(j, {"num_decoder_layers"}, origin, m.num_layers, kMaxLayers);
  m.num_heads = size_field(j, {"num_heads"}, origin);
  m.vocab_size = size_field(j, {"vocab_size"}, origin);
  m.head_dim = optional_size(j, {"d_kv"}, origin, 0);
  if (m.head_dim == 0) {
    check_heads(m, origin, "num_heads");
    m.head_dim = m.hidden_size / m.num_heads;
  }
  m.intermediate_size = size_field(j, {"d_ff"}, origin);
}

// A row whose layer runs attention and MLP in parallel, and a config switch that would make it
// sequential (`field` false: Falcon's parallel_attn, GPT-NeoX's use_parallel_residual): refused,
// one message for both.
void require_parallel_layer(const nlohmann::json& j, std::string_view field,
                            std::string_view origin, std::string_view model_type) {
  if (detail::bool_field(j, field, origin, true)) return;
  throw Error(std::string(origin) + ": field '" + std::string(field) + "' false (a sequential " +
              std::string(model_type) +
              " layer) is not supported; allowed: true (attention and MLP in parallel)");
}

// Falcon: grouped-query K/V heads (num_kv_heads) in the new decoder architecture, one K/V head
// (multi_query) or one per query head in the old; attention and MLP in parallel on one norm
// (old) or two (new: ln_attn, ln_mlp); ALiBi and a sequential layer are not modelled.
void read_falcon_shape(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.hidden_size = size_field(j, {"hidden_size", "n_embed"}, origin);
  m.num_layers = size_field(j, {"num_hidden_layers", "n_layer"}, origin, kMaxLayers);
  m.num_heads = size_field(j, {"num_attention_heads", "n_head"}, origin);
  m.vocab_size = size_field(j, {"vocab_size"}, origin);
  check_heads(m, origin, "num_attention_heads");
  m.intermediate_size = optional_size(j, {"ffn_hidden_size"}, origin, 4 * m.hidden_size);
  m.max_context = optional_size(j, {"max_position_embeddings"}, origin, 2048);
  if (detail::bool_field(j, "alibi", origin, false))
    throw Error(std::string(origin) +
                ": field 'alibi' true (ALiBi position biases) is not supported; allowed: false "
                "(rotary positions)");
  const bool new_arch = detail::bool_field(j, "new_decoder_architecture", origin, false);
  if (!new_arch) require_parallel_layer(j, "parallel_attn", origin, "falcon");  // new: always
  if (new_arch) {
    m.num_kv_heads = optional_size(j, {"num_kv_heads"}, origin, m.num_heads);
    m.parallel_norms = optional_size(j, {"num_ln_in_parallel_attn"}, origin, 2, 2);
  } else {
    m.num_kv_heads = detail::bool_field(j, "multi_query", origin, true) ? 1 : m.num_heads;
  }
  if (m.num_heads % m.num_kv_heads != 0)
    throw Error(std::string(origin) + ": field 'num_kv_heads' (" + std::to_string(m.num_kv_heads) +
                ") does not divide num_attention_heads (" + std::to_string(m.num_heads) + ")");
}

// ---- what the row's traits add ----

// Activation, biases and dropouts, in the words the row names (HfFields).
void read_common(const nlohmann::json& j, std::string_view origin, const ArchitectureTraits& t,
                 ModelConfig& m) {
  m.activation = parse_activation(j, t.hf.activation_field, origin, t.hf.activation);
  switch (t.attention_bias) {
    case AttentionBias::none: break;
    case AttentionBias::all: m.attention_bias = m.mlp_bias = true; break;
    case AttentionBias::mlp_only: m.mlp_bias = true; break;
    case AttentionBias::qkv_only:
      m.attention_bias = true;
      m.mlp_bias = detail::bool_field(j, t.hf.mlp_bias_field, origin, false);
      break;
    case AttentionBias::config:
      m.attention_bias = detail::bool_field(j, t.hf.bias_field, origin, t.hf.bias_default);
      m.mlp_bias = t.hf.mlp_bias_field.empty()
                       ? m.attention_bias
                       : detail::bool_field(j, t.hf.mlp_bias_field, origin, false);
      break;
    case AttentionBias::config_attention:
      m.attention_bias = detail::bool_field(j, t.hf.bias_field, origin, t.hf.bias_default);
      m.mlp_bias = true;
      break;
  }
  if (!t.hf.parallel_field.empty())
    require_parallel_layer(j, t.hf.parallel_field, origin, t.model_type);
  m.attention_dropout =
      optional_prob(j, t.hf.attention_dropout_field, origin, t.hf.attention_dropout);
  m.hidden_dropout = optional_prob(j, t.hf.hidden_dropout_field, origin, t.hf.hidden_dropout);
}

// The expert count and top-k (mixtral, qwen2_moe) and the check between them.
void read_top_k(const nlohmann::json& j, std::string_view origin, ModelConfig& m,
                std::string_view count_field) {
  const std::string field(count_field);
  m.num_experts = size_field(j, {field.c_str()}, origin, kMaxExperts);
  m.experts_per_token = optional_size(j, {"num_experts_per_tok"}, origin, 2);
  if (m.experts_per_token > m.num_experts)
    throw Error(std::string(origin) + ": field 'num_experts_per_tok' (" +
                std::to_string(m.experts_per_token) + ") exceeds '" + field + "' (" +
                std::to_string(m.num_experts) + ")");
}

// Hugging Face's decoder rule for which layers have experts (MoeLayers::decoder_step).
void read_decoder_step(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.decoder_sparse_step = optional_step(j, "decoder_sparse_step", origin, 1);
  if (detail::has_field(j, "mlp_only_layers")) {
    const auto& a = j.at("mlp_only_layers");
    if (!a.is_array())
      throw Error(std::string(origin) + ": field 'mlp_only_layers' must be an array");
    for (const auto& v : a) {
      if (!v.is_number_integer() || v.get<long long>() < 0)
        throw Error(std::string(origin) +
                    ": field 'mlp_only_layers' must hold layer indices (integers >= 0)");
      m.mlp_only_layers.push_back(v.get<std::int64_t>());
    }
  }
}

// DeepSeek-V3's rule: the first first_k_dense_replace layers dense, every later one with experts
// (moe_layer_freq 1: another frequency is an error naming it).
void read_dense_layers(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.first_dense_layers =
      detail::has_field(j, "first_k_dense_replace")
          ? detail::integer_field(j, "first_k_dense_replace", origin, 0, m.num_layers)
          : 0;
  if (detail::has_field(j, "moe_layer_freq") &&
      detail::integer_field(j, "moe_layer_freq", origin, 1, kMaxLayers) != 1)
    throw Error(std::string(origin) +
                ": field 'moe_layer_freq' above 1 is not supported (experts in every layer after "
                "the first_k_dense_replace dense ones); allowed: 1");
}

// Llama 4's rule: the layers moe_layers lists (any of 0 to num_hidden_layers - 1), or when it is
// absent or null every interleave_moe_layer_step-th, (i + 1) % step == 0, as Llama4TextConfig
// derives the list. Kept as the decoder rule's step and its dense layers (mlp_only_layers).
void read_interleaved_layers(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.decoder_sparse_step = optional_step(j, "interleave_moe_layer_step", origin, 1);
  if (!detail::has_field(j, "moe_layers")) return;
  const nlohmann::json& list = j.at("moe_layers");
  const std::string allowed = "allowed: an array of layer indices, 0 to " +
                              std::to_string(m.num_layers - 1) + " (the layers with experts)";
  if (!list.is_array())
    throw Error(std::string(origin) + ": field 'moe_layers' must be an array; " + allowed);
  std::vector<bool> experts(std::size_t(m.num_layers), false);
  for (const auto& v : list) {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= m.num_layers)
      throw Error(std::string(origin) + ": field 'moe_layers' holds " + v.dump() + "; " + allowed);
    experts[std::size_t(v.get<long long>())] = true;
  }
  m.decoder_sparse_step = 1;
  m.mlp_only_layers.clear();
  for (std::int64_t i = 0; i < m.num_layers; ++i)
    if (!experts[std::size_t(i)]) m.mlp_only_layers.push_back(i);
}

// Multi-head latent attention's shapes (DeepSeek-V3's words): q_lora_rank (null: one q_proj),
// kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim; q's and k's head is nope + rope
// (a config's head_dim, the rotary part in later transformers releases, is not the head).
void read_latent_attention(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.q_lora_rank = optional_size(j, {"q_lora_rank"}, origin, 0);
  m.kv_lora_rank = size_field(j, {"kv_lora_rank"}, origin);
  m.qk_rope_head_dim = size_field(j, {"qk_rope_head_dim"}, origin);
  m.head_dim = size_field(j, {"qk_nope_head_dim"}, origin) + m.qk_rope_head_dim;
  m.rotary_dim = m.qk_rope_head_dim;  // rotary turns each head's rope part only
  m.v_head_dim = size_field(j, {"v_head_dim"}, origin);
}

void read_experts(const nlohmann::json& j, std::string_view origin, const ArchitectureTraits& t,
                  ModelConfig& m) {
  switch (t.routing) {
    case Routing::none: break;
    case Routing::top1_capacity:
      m.num_experts = size_field(j, {std::string(t.hf.experts_field).c_str()}, origin, kMaxExperts);
      m.expert_capacity = size_field(j, {"expert_capacity"}, origin);
      m.encoder_sparse_step = optional_step(j, "encoder_sparse_step", origin, 0);
      m.decoder_sparse_step = optional_step(j, "decoder_sparse_step", origin, 0);
      break;
    case Routing::top_k:
    case Routing::top_k_shared:
      read_top_k(j, origin, m, t.hf.experts_field);
      m.expert_intermediate_size =
          t.hf.expert_width_field.empty()
              ? m.intermediate_size
              : size_field(j, {std::string(t.hf.expert_width_field).c_str()}, origin);
      // Mixtral always renormalises its top-k weights; the Qwen MoEs as their configs say
      m.norm_topk_prob = t.hf.norm_topk_field.empty() ||
                         detail::bool_field(j, t.hf.norm_topk_field, origin, false);
      if (t.moe_layers == MoeLayers::decoder_step) read_decoder_step(j, origin, m);
      if (t.moe_layers == MoeLayers::after_dense) read_dense_layers(j, origin, m);
      if (t.moe_layers == MoeLayers::interleave) read_interleaved_layers(j, origin, m);
      if (t.routing == Routing::top_k_shared && !t.hf.shared_experts_field.empty())
        // DeepSeek-V3: n_shared_experts experts of moe_intermediate_size, run as one MLP
        m.shared_expert_intermediate_size =
            m.expert_intermediate_size *
            optional_size(j, {std::string(t.hf.shared_experts_field).c_str()}, origin, 1,
                          std::max<std::int64_t>(1, kMaxSize / m.expert_intermediate_size));
      else if (t.routing == Routing::top_k_shared)  // one shared expert of its own width
        m.shared_expert_intermediate_size =
            size_field(j, {std::string(t.hf.shared_width_field).c_str()}, origin);
      break;
  }
}

// Gemma 3's layer pattern: sliding_window_pattern (Hugging Face's default 6: five sliding layers,
// then a global one); a config listing layer_types (later transformers releases) must follow it.
void read_layer_pattern(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  m.sliding_window_pattern =
      detail::has_field(j, "sliding_window_pattern")
          ? detail::integer_field(j, "sliding_window_pattern", origin, 1, kMaxLayers)
          : 6;
  if (!detail::has_field(j, "layer_types")) return;
  const nlohmann::json& types = j.at("layer_types");
  const std::string allowed = "allowed: an array of \"sliding_attention\" and \"full_attention\"";
  if (!types.is_array() || std::int64_t(types.size()) != m.num_layers)
    throw Error(std::string(origin) + ": field 'layer_types' must list every layer (" +
                std::to_string(m.num_layers) + "); " + allowed);
  for (std::int64_t i = 0; i < m.num_layers; ++i) {
    const nlohmann::json& v = types[std::size_t(i)];
    const bool sliding = (i + 1) % m.sliding_window_pattern != 0;
    const char* expected = sliding ? "sliding_attention" : "full_attention";
    if (!v.is_string() || (v != "sliding_attention" && v != "full_attention"))
      throw Error(std::string(origin) + ": field 'layer_types' entry " + std::to_string(i) +
                  " is not a layer type; " + allowed);
    if (v != expected)
      throw Error(std::string(origin) + ": field 'layer_types' entry " + std::to_string(i) +
                  " is " + v.get<std::string>() + " where a pattern of " +
                  std::to_string(m.sliding_window_pattern) + " has " + expected +
                  "; only layers in that pattern are modelled (sliding_window_pattern)");
  }
}

// Llama 4's layers: chunked local attention with rotary where no_rope_layers says 1, global NoPE
// attention where it says 0 (absent, null or empty: a NoPE layer every no_rope_layer_interval-th,
// default 4, Llama4TextConfig's rule). Kept as the period the list follows (the first NoPE
// layer's index + 1; none: every layer chunked), which the whole list must follow; a layer_types
// list must agree (chunked_attention where rotary). attention_chunk_size: absent, 8192 (the
// config class's default); null is refused, as transformers' chunked mask refuses it.
void read_chunked_layers(const nlohmann::json& j, std::string_view origin, ModelConfig& m) {
  if (j.contains("attention_chunk_size") && j.at("attention_chunk_size").is_null())
    throw Error(std::string(origin) +
                ": field 'attention_chunk_size' is null; allowed: a chunk size in tokens (1 or "
                "more; absent: 8192), which the chunked layers attend within");
  m.sliding_window = optional_size(j, {"attention_chunk_size"}, origin, 8192);
  const std::int64_t L = m.num_layers;
  const bool listed = detail::has_field(j, "no_rope_layers") && j.at("no_rope_layers").is_array() &&
                      !j.at("no_rope_layers").empty();
  if (detail::has_field(j, "no_rope_layers") && !j.at("no_rope_layers").is_array())
    throw Error(std::string(origin) +
                ": field 'no_rope_layers' must be an array of 1 (rotary) and 0 (NoPE)");
  if (!listed) {
    m.sliding_window_pattern =
        detail::has_field(j, "no_rope_layer_interval")
            ? detail::integer_field(j, "no_rope_layer_interval", origin, 1, kMaxLayers)
            : 4;
  } else {
    const nlohmann::json& list = j.at("no_rope_layers");
    if (std::int64_t(list.size()) < L)
      throw Error(std::string(origin) + ": field 'no_rope_layers' lists " +
                  std::to_string(list.size()) + " layers; allowed: at least every layer (" +
                  std::to_string(L) + "), each 1 (rotary) or 0 (NoPE)");
    std::int64_t period = L + 1;  // no NoPE layer: every layer chunked
    for (std::int64_t i = 0; i < L; ++i) {
      const nlohmann::json& v = list[std::size_t(i)];
      if (!v.is_number_integer() || (v.get<long long>() != 0 && v.get<long long>() != 1))
        throw Error(std::string(origin) + ": field 'no_rope_layers' entry " + std::to_string(i) +
                    " is " + v.dump() + "; allowed: 1 (rotary) or 0 (NoPE)");
      if (v.get<long long>() == 0 && period == L + 1) period = i + 1;
    }
    for (std::int64_t i = 0; i < L; ++i) {
      const bool rotary = (i + 1) % period != 0;
      if ((list[std::size_t(i)].get<long long>() == 1) != rotary)
        throw Error(std::string(origin) + ": field 'no_rope_layers' entry " + std::to_string(i) +
                    " breaks the pattern its first NoPE layer sets (one every " +
                    std::to_string(period) +
                    " layers); only a NoPE layer every n-th is modelled, as "
                    "no_rope_layer_interval gives it");
    }
    m.sliding_window_pattern = period;
  }
  if (!detail::has_field(j, "layer_types")) return;
  const nlohmann::json& types = j.at("layer_types");
  const std::string allowed =
      "allowed: an array of \"chunked_attention\" (the rotary layers) and "
      "\"full_attention\" (the NoPE ones), one a layer";
  if (!types.is_array() || std::int64_t(types.size()) != L)
    throw Error(std::string(origin) + ": field 'layer_types' must list every layer (" +
                std::to_string(L) + "); " + allowed);
  for (std::int64_t i = 0; i < L; ++i) {
    const char* expected =
        (i + 1) % m.sliding_window_pattern != 0 ? "chunked_attention" : "full_attention";
    if (types[std::size_t(i)] != expected)
      throw Error(std::string(origin) + ": field 'layer_types' entry " + std::to_string(i) +
                  " is " + types[std::size_t(i)].dump() + " where no_rope_layers makes it " +
                  expected + "; " + allowed);
  }
}

// attn_temperature_tuning: a bool, or a number read as its truth (the released configs' 4);
// absent, true (Llama4TextConfig's default).
bool read_temperature_tuning(const nlohmann::json& j, std::string_view origin) {
  const char* field = "attn_temperature_tuning";
  if (!detail::has_field(j, field)) return true;
  const nlohmann::json& v = j.at(field);
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return detail::number_field(j, field, origin, -1e9, 1e9) != 0;
  throw Error(std::string(origin) +
              ": field 'attn_temperature_tuning' must be true, false or a "
              "number (0: off), got " +
              v.dump());
}

// GPT-NeoX's rotary_pct: rotary turns int(head_dim x share) features of each head (Hugging
// Face's rounding), an even count of at least 2, the rest concatenated back (all: rotary_dim 0).
void read_rotary_share(const nlohmann::json& j, std::string_view origin, std::string_view field,
                       ModelConfig& m) {
  const std::string name(field);
  const double share = detail::number_field(j, name, origin, 0, 1);
  const std::int64_t hd = m.head_dim > 0 ? m.head_dim : m.hidden_size / m.num_heads;
  const auto turned = std::int64_t(double(hd) * share);
  if (turned < 2 || turned % 2 != 0)
    throw Error(std::string(origin) + ": field '" + name + "' (" + detail::format_g(share) +
                ") turns " + std::to_string(turned) + " of each head's " + std::to_string(hd) +
                " features; allowed: a share giving an even count of at least 2");
  m.rotary_dim = turned < hd ? turned : 0;
}

// Attention variants: sliding windows, soft-capping, per-head q/k norms by the config, the
// logits' scale, partial rotary.
void read_attention_variant(const nlohmann::json& j, std::string_view origin,
                            const ArchitectureTraits& t, ModelConfig& m) {
  if (t.sliding == Sliding::none && detail::bool_field(j, "use_sliding_window", origin, false))
    throw Error(std::string(origin) + ": field 'use_sliding_window' true is not supported (" +
                std::string(t.model_type) + ": only full attention is modelled); allowed: false");
  if (t.sliding != Sliding::none && t.sliding != Sliding::chunked)
    m.sliding_window = optional_size(j, {"sliding_window"}, origin, 4096);
  if (t.sliding == Sliding::pattern) read_layer_pattern(j, origin, m);
  if (t.sliding == Sliding::chunked) read_chunked_layers(j, origin, m);
  if (t.global_nope) m.attn_temperature = read_temperature_tuning(j, origin);
  if (t.softcapping) {
    m.attn_logit_softcap = optional_number(j, "attn_logit_softcapping", origin, 0);
    m.final_logit_softcap = optional_number(j, "final_logit_softcapping", origin, 0);
    m.query_pre_attn_scalar = optional_number(j, "query_pre_attn_scalar", origin, 256);
  }
  if (!t.hf.qk_norm_field.empty())
    m.config_qk_norm = detail::bool_field(j, t.hf.qk_norm_field, origin, false);
  if (!t.hf.logit_scale_field.empty())
    m.logit_scale = optional_number(j, std::string(t.hf.logit_scale_field).c_str(), origin, 0);
  // GPT-J: the first rotary_dim features of each head (absent or null: all)
  if (t.positions == Positions::rotary && detail::has_field(j, "rotary_dim"))
    m.rotary_dim = detail::integer_field(j, "rotary_dim", origin, 2, kMaxSize);
  if (!t.hf.rotary_share_field.empty())
    read_rotary_share(j, origin, t.hf.rotary_share_field, m);
  else if (t.positions == Positions::rotary && detail::has_field(j, "partial_rotary_factor") &&
           detail::number_field(j, "partial_rotary_factor", origin, 0, 1) != 1.0)
    throw Error(std::string(origin) +
                ": field 'partial_rotary_factor' below 1 is not supported; allowed: 1");
}

// The major version of "tilecast_transformers_version" ("5.17.0" -> 5); 4 when absent.
int transformers_major(const nlohmann::json& j, std::string_view origin) {
  const std::string field = "tilecast_transformers_version";
  const std::string v = detail::string_field(j, field, origin, false);
  if (v.empty()) return 4;
  const std::string major = v.substr(0, v.find('.'));
  if (major != "4" && major != "5")
    throw Error(std::string(origin) + ": field '" + field + "' ('" + v +
                "') must name a transformers release 4.x or 5.x (allowed: 4, 5)");
  return major == "4" ? 4 : 5;
}

// The experts implementations by name: the one list the parser and its messages use.
constexpr EnumName<ExpertsImplementation> kExpertsImplementations[] = {
    {"eager", ExpertsImplementation::eager}, {"grouped_mm", ExpertsImplementation::grouped_mm}};

// "tilecast_experts_implementation": transformers 5 runs either; transformers 4 only the loop.
ExpertsImplementation experts_implementation(const nlohmann::json& j, std::string_view origin,
                                             int transformers) {
  const std::string field = "tilecast_experts_implementation";
  const std::string v = detail::string_field(j, field, origin, false);
  if (v.empty())
    return transformers >= 5 ? ExpertsImplementation::grouped_mm : ExpertsImplementation::eager;
  const std::optional<ExpertsImplementation> e = find_enum(experts_implementation_names(), v);
  if (!e)
    throw Error(std::string(origin) + ": field '" + field + "' is \"" + v +
                "\"; allowed: " + enum_names_joined(experts_implementation_names(), ", "));
  if (transformers < 5 && *e != ExpertsImplementation::eager)
    throw Error(std::string(origin) + ": field '" + field + "' is \"" + v +
                "\", which transformers 5 added; transformers 4 runs the experts' eager "
                "loop only (set \"tilecast_transformers_version\" to a 5.x release, or "
                "allowed: eager)");
  return *e;
}

}  // namespace

EnumNames<ExpertsImplementation> experts_implementation_names() { return kExpertsImplementations; }

std::string_view experts_implementation_name(ExpertsImplementation e) {
  return enum_name(experts_implementation_names(), e);
}

bool is_moe_layer(const ModelConfig& m, std::int64_t i) {
  switch (traits(m).moe_layers) {
    case MoeLayers::every: return true;
    case MoeLayers::after_dense: return m.num_experts > 0 && i >= m.first_dense_layers;
    case MoeLayers::decoder_step:
    case MoeLayers::interleave:
      return std::find(m.mlp_only_layers.begin(), m.mlp_only_layers.end(), i) ==
                 m.mlp_only_layers.end() &&
             m.num_experts > 0 && m.decoder_sparse_step > 0 && (i + 1) % m.decoder_sparse_step == 0;
    case MoeLayers::none:
    case MoeLayers::t5_step: return false;  // switch: is_sparse_layer per stack
  }
  return false;
}

bool is_sliding_layer(const ModelConfig& m, std::int64_t i) {
  if (m.sliding_window <= 0) return false;
  switch (traits(m).sliding) {
    case Sliding::none: return false;
    case Sliding::even_layers: return i % 2 == 0;
    case Sliding::pattern:
    case Sliding::chunked: return (i + 1) % m.sliding_window_pattern != 0;
  }
  return false;
}

std::int64_t sliding_layer_count(const ModelConfig& m) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < m.num_layers; ++i) n += is_sliding_layer(m, i) ? 1 : 0;
  return n;
}

std::string_view architecture_name(Architecture a) { return traits(a).model_type; }

std::string supported_architectures() {
  std::string s;
  for (const auto& a : architecture_table()) {
    if (!s.empty()) s += ", ";
    s += a.model_type;
  }
  return s;
}

bool is_sparse_layer(std::int64_t sparse_step, std::int64_t i) {
  return sparse_step > 0 && (sparse_step == 1 || i % sparse_step == 1);
}

double ModelConfig::params() const {
  const ArchitectureTraits& t = traits(architecture);
  const double h = double(hidden_size), ff = double(intermediate_size), v = double(vocab_size);
  const double q = double(num_heads * head_dim), kv = double(num_kv_heads * head_dim);
  // latent attention: q through its bottleneck (or one q_proj), the k/v latent and the rotary key
  // from the input, k's and v's up-projection from the latent (two RMSNorms), the output projection
  const double ql = double(q_lora_rank), kvl = double(kv_lora_rank), heads = double(num_heads);
  const double attn =
      kv_lora_rank > 0
          ? (ql > 0 ? h * ql + ql + ql * q : h * q) + h * (kvl + double(qk_rope_head_dim)) + kvl +
                kvl * heads * (double(head_dim - qk_rope_head_dim) + double(v_head_dim)) +
                heads * double(v_head_dim) * h
          : h * q + 2 * h * kv + q * h;
  const double mlp_matrices = t.ffn == Ffn::gated ? 3 : 2;
  if (t.stack == Stack::encoder_decoder) {  // T5 stacks: the decoder's cross-attention too
    auto layer_ff = [&](std::int64_t step, std::int64_t i) {
      const bool sparse = t.moe_layers == MoeLayers::t5_step && is_sparse_layer(step, i);
      return (sparse ? double(num_experts) : 1.0) * mlp_matrices * h * ff;
    };
    double p = v * h;
    for (std::int64_t i = 0; i < num_layers; ++i) p += attn + layer_ff(encoder_sparse_step, i);
    for (std::int64_t i = 0; i < num_decoder_layers; ++i)
      p += 2 * attn + layer_ff(decoder_sparse_step, i);
    return p;
  }
  const double embeddings = v * h * (tie_word_embeddings ? 1 : 2);  // token table, untied head
  if (top_k_routing(t.routing)) {
    const double ef = double(expert_intermediate_size),
                 sf = double(shared_expert_intermediate_size);
    double p = embeddings;
    for (std::int64_t i = 0; i < num_layers; ++i) {
      p += attn;
      if (is_moe_layer(*this, i))  // router, experts, shared expert and its gate
        p += h * double(num_experts) + double(num_experts) * mlp_matrices * h * ef +
             (sf > 0 ? mlp_matrices * h * sf + (t.shared_expert_gate ? h : 0) : 0);
      else
        p += mlp_matrices * h * ff;
    }
    return p;
  }
  const double norms = t.sandwich_norms ? 4 * h : 0;  // Gemma 2's four norms a layer
  const double layers = double(num_layers) * (attn + mlp_matrices * h * ff + norms);
  if (word_embed_proj_dim > 0) {  // OPT: a v x word_embed_proj_dim table, projected in and out
    const double p = double(word_embed_proj_dim);
    return layers + v * p + (p != h ? 2 * p * h : 0);
  }
  return layers + embeddings;
}

// A vision-language config whose own model_type no row reads but whose text_config is an object:
// the text_config, with the outer fields that name the model or its checkpoint added where the
// text_config lacks them. Any other config as it is.
nlohmann::json language_model(const nlohmann::json& top, std::string_view origin,
                              std::string& outer_type) {
  if (!top.is_object() || !detail::has_field(top, "text_config") ||
      !top.at("text_config").is_object())
    return top;
  outer_type = detail::string_field(top, "model_type", origin, false);
  for (const auto& a : architecture_table())
    if (outer_type == a.model_type) {
      outer_type.clear();
      return top;
    }
  nlohmann::json text = top.at("text_config");
  for (const auto& [key, value] : top.items())
    if ((key.rfind("tilecast_", 0) == 0 || key == "_name_or_path" || key == "quantization_config" ||
         key == "tie_word_embeddings") &&
        !text.contains(key))
      text[key] = value;
  if (outer_type.empty()) outer_type = "a vision-language model";
  return text;
}

ModelConfig parse_model_config(std::string_view json_text, std::string_view file) {
  ModelConfig m;
  const nlohmann::json parsed =
      language_model(detail::parse_json(json_text, file), file, m.language_model_of);
  // errors in a vision-language config's language model name its text_config
  const std::string where =
      std::string(file) + (m.language_model_of.empty() ? "" : ": text_config");
  const std::string_view origin = where;
  m.architecture = detect(parsed, origin, m.model_type);
  const ArchitectureTraits& t = traits(m.architecture);
  nlohmann::json j = parsed;
  const nlohmann::json defaults = nlohmann::json::parse(t.hf.defaults);
  for (const auto& [key, value] : defaults.items())
    if (!j.contains(key) || j.at(key).is_null()) j[key] = value;
  m.name = detail::string_field(j, "tilecast_name", origin, false);
  if (m.name.empty()) m.name = detail::string_field(j, "_name_or_path", origin, false);
  if (m.name.empty()) m.name = std::string(architecture_name(m.architecture));
  m.source = detail::string_field(j, "tilecast_source", origin, false);
  m.aliases = detail::string_list_field(j, "tilecast_aliases", origin);
  m.tie_word_embeddings =
      detail::bool_field(j, "tie_word_embeddings", origin, t.hf.tied_embeddings);
  m.transformers_major = transformers_major(j, origin);
  m.experts_implementation = experts_implementation(j, origin, m.transformers_major);
  check_unsupported(j, origin);
  m.checkpoint_weights = checkpoint_weights(j, origin);

  m.parallel_norms = t.parallel_norms;  // Falcon's config may say 2
  switch (t.hf.dialect) {
    case Dialect::gpt2: read_gpt2_shape(j, origin, m); break;
    case Dialect::bert: read_bert_shape(j, origin, m); break;
    case Dialect::opt: read_opt_shape(j, origin, m); break;
    case Dialect::llama: read_llama_shape(j, origin, m, t.hf.mlp_width_field); break;
    case Dialect::t5: read_t5_shape(j, origin, m); break;
    case Dialect::falcon: read_falcon_shape(j, origin, m); break;
  }
  if (t.positions != Positions::learned) m.max_positions = 0;  // GPT-J's n_positions: no table
  read_common(j, origin, t, m);
  read_experts(j, origin, t, m);
  read_attention_variant(j, origin, t, m);
  if (t.latent_attention) read_latent_attention(j, origin, m);
  if (m.num_kv_heads == 0) m.num_kv_heads = m.num_heads;
  if (m.head_dim == 0) m.head_dim = m.hidden_size / m.num_heads;
  if (m.rotary_dim > m.head_dim)
    throw Error(std::string(origin) + ": field 'rotary_dim' (" + std::to_string(m.rotary_dim) +
                ") exceeds the head size (" + std::to_string(m.head_dim) + "); allowed: 2.." +
                std::to_string(m.head_dim));
  if (m.num_layers > kMaxLayers || m.num_decoder_layers > kMaxLayers)
    throw Error(std::string(origin) + ": more than " + std::to_string(kMaxLayers) + " layers");
  return m;
}

}  // namespace tilecast
