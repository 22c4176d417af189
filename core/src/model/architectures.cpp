// The architecture table: one row per Hugging Face model_type tilecast reads, with its traits,
// the config words it is read from and the builder of its forward pass (architectures.hpp).
// Adding an architecture: its Architecture value, one row here, and a builder file only when no
// existing builder runs its forward pass. tests/architectures_test.cpp checks every row.
#include "model/architectures.hpp"

#include "graph/builder.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

using detail::build_bert;
using detail::build_falcon;
using detail::build_gemma;
using detail::build_gpt2;
using detail::build_gpt_oss;
using detail::build_gptj;
using detail::build_llama;
using detail::build_llama4;
using detail::build_mixtral;
using detail::build_opt;
using detail::build_phi3;
using detail::build_switch;

// The Llama family's config words: SiLU in hidden_act, untied head, optional attention_bias and
// mlp_bias, attention_dropout.
constexpr HfFields kLlamaFields{};

constexpr ArchitectureTraits kTable[] = {
    {.id = Architecture::gpt2,
     .model_type = "gpt2",
     .class_prefix = "GPT2",
     .family = "GPT-2 / GPT-3",
     .norm = Norm::layer,
     .positions = Positions::learned,
     .fused_qkv = true,
     .attention_bias = AttentionBias::all,
     .ffn = Ffn::dense,
     .hf = {.dialect = Dialect::gpt2,
            .activation_field = "activation_function",
            .activation = Activation::gelu_new,
            .tied_embeddings = true,
            .attention_dropout_field = "attn_pdrop",
            .attention_dropout = 0.1,
            .hidden_dropout_field = "resid_pdrop",
            .hidden_dropout = 0.1},
     .build = build_gpt2,
     .builder_file = "gpt2.cpp"},
    {.id = Architecture::bert,
     .model_type = "bert",
     .class_prefix = "Bert",
     .family = "BERT",
     .stack = Stack::encoder,
     .norm = Norm::layer,
     .positions = Positions::learned,
     .attention_bias = AttentionBias::all,
     .ffn = Ffn::dense,
     .hf = {.dialect = Dialect::bert,
            .activation = Activation::gelu,
            .tied_embeddings = true,
            .attention_dropout_field = "attention_probs_dropout_prob",
            .attention_dropout = 0.1,
            .hidden_dropout_field = "hidden_dropout_prob",
            .hidden_dropout = 0.1},
     .build = build_bert,
     .builder_file = "bert.cpp"},
    {.id = Architecture::opt,
     .model_type = "opt",
     .class_prefix = "OPT",
     .family = "OPT",
     .norm = Norm::layer,
     .positions = Positions::learned,
     .ffn = Ffn::dense,
     .hf = {.dialect = Dialect::opt,
            .activation_field = "activation_function",
            .activation = Activation::relu,
            .tied_embeddings = true,
            .bias_field = "enable_bias",
            .bias_default = true,
            .mlp_bias_field = "",
            .hidden_dropout_field = "dropout",
            .hidden_dropout = 0.1},
     .build = build_opt,
     .builder_file = "opt.cpp"},
    {.id = Architecture::llama,
     .model_type = "llama",
     .class_prefix = "Llama",
     .family = "Llama",
     .hf = kLlamaFields,
     .build = build_llama,
     .builder_file = "llama.cpp"},
    {.id = Architecture::mistral,
     .model_type = "mistral",
     .class_prefix = "Mistral",
     .family = "Mistral",
     .hf = kLlamaFields,
     .build = build_llama,
     .builder_file = "llama.cpp"},
    {.id = Architecture::qwen2,
     .model_type = "qwen2",
     .class_prefix = "Qwen2",
     .family = "Qwen",
     .attention_bias = AttentionBias::qkv_only,
     .hf = kLlamaFields,
     .build = build_llama,
     .builder_file = "llama.cpp"},
    {.id = Architecture::switch_transformers,
     .model_type = "switch_transformers",
     .class_prefix = "SwitchTransformers",
     .family = "Switch Transformer",
     .stack = Stack::encoder_decoder,
     .positions = Positions::relative_bias,
     .attention_bias = AttentionBias::none,
     .ffn = Ffn::dense,
     .routing = Routing::top1_capacity,
     .moe_layers = MoeLayers::t5_step,
     .hf = {.dialect = Dialect::t5,
            .activation_field = "dense_act_fn",
            .activation = Activation::relu,
            .tied_embeddings = true,
            .attention_dropout_field = "dropout_rate",
            .attention_dropout = 0.1,
            .hidden_dropout_field = "dropout_rate",
            .hidden_dropout = 0.1,
            .experts_field = "num_experts"},
     .build = build_switch,
     .builder_file = "switch.cpp"},
    {.id = Architecture::mixtral,
     .model_type = "mixtral",
     .class_prefix = "Mixtral",
     .family = "Mixtral (mixture of experts)",
     .routing = Routing::top_k,
     .moe_layers = MoeLayers::every,
     .hf = {.experts_field = "num_local_experts"},
     .build = build_mixtral,
     .builder_file = "mixtral.cpp"},
    {.id = Architecture::qwen2_moe,
     .model_type = "qwen2_moe",
     .class_prefix = "Qwen2Moe",
     .family = "Qwen MoE (mixture of experts)",
     .attention_bias = AttentionBias::qkv_only,
     .routing = Routing::top_k_shared,
     .moe_layers = MoeLayers::decoder_step,
     // Qwen2MoeConfig's shared expert width where a config leaves it out
     .hf = {.experts_field = "num_experts",
            .expert_width_field = "moe_intermediate_size",
            .norm_topk_field = "norm_topk_prob",
            .defaults = R"({"shared_expert_intermediate_size": 5632})"},
     .build = build_mixtral,
     .builder_file = "mixtral.cpp"},
    {.id = Architecture::gemma,
     .model_type = "gemma",
     .class_prefix = "Gemma",
     .family = "Gemma",
     .norm = Norm::rms_gemma,
     .scaled_embeddings = true,
     // Gemma reads hidden_activation (gelu_pytorch_tanh when absent), never hidden_act
     .hf = {.activation_field = "hidden_activation",
            .activation = Activation::gelu,
            .tied_embeddings = true},
     .build = build_gemma,
     .builder_file = "gemma.cpp"},
    {.id = Architecture::gemma2,
     .model_type = "gemma2",
     .class_prefix = "Gemma2",
     .family = "Gemma 2",
     .norm = Norm::rms_gemma,
     .sandwich_norms = true,
     .sliding = Sliding::even_layers,
     .scaled_embeddings = true,
     .softcapping = true,
     .hf = {.activation_field = "hidden_activation",
            .activation = Activation::gelu,
            .tied_embeddings = true},
     .build = build_gemma,
     .builder_file = "gemma.cpp"},
    {.id = Architecture::phi3,
     .model_type = "phi3",
     .class_prefix = "Phi3",
     .family = "Phi-3",
     .fused_qkv = true,
     .fused_gate_up = true,
     .hf = {.hidden_dropout_field = "resid_pdrop"},
     .build = build_phi3,
     .builder_file = "phi3.cpp"},
    {.id = Architecture::qwen3,
     .model_type = "qwen3",
     .class_prefix = "Qwen3",
     .family = "Qwen3",
     .qk_norm = true,
     .hf = kLlamaFields,
     .build = build_llama,
     .builder_file = "llama.cpp"},
    {.id = Architecture::gptj,
     .model_type = "gptj",
     .class_prefix = "GPTJ",
     .family = "GPT-J",
     .norm = Norm::layer,
     .parallel_residual = true,
     .attention_bias = AttentionBias::mlp_only,
     .ffn = Ffn::dense,
     .hf = {.dialect = Dialect::gpt2,
            .activation_field = "activation_function",
            .activation = Activation::gelu_new,
            .attention_dropout_field = "attn_pdrop",
            .hidden_dropout_field = "resid_pdrop"},
     .build = build_gptj,
     .builder_file = "gptj.cpp"},
    {.id = Architecture::falcon,
     .model_type = "falcon",
     .class_prefix = "Falcon",
     .family = "Falcon",
     .norm = Norm::layer,
     .parallel_residual = true,
     .fused_qkv = true,
     .ffn = Ffn::dense,
     .hf = {.dialect = Dialect::falcon,
            .activation_field = "activation",
            .activation = Activation::gelu,
            .tied_embeddings = true,
            .bias_field = "bias",
            .mlp_bias_field = "",
            .hidden_dropout_field = "hidden_dropout"},
     .build = build_falcon,
     .builder_file = "falcon.cpp"},
    {.id = Architecture::qwen3_moe,
     .model_type = "qwen3_moe",
     .class_prefix = "Qwen3Moe",
     .family = "Qwen3 MoE (mixture of experts)",
     .qk_norm = true,
     .routing = Routing::top_k,
     .moe_layers = MoeLayers::decoder_step,
     .hf = {.experts_field = "num_experts",
            .expert_width_field = "moe_intermediate_size",
            .norm_topk_field = "norm_topk_prob"},
     .build = build_mixtral,
     .builder_file = "mixtral.cpp"},
    {.id = Architecture::gpt_oss,
     .model_type = "gpt_oss",
     .class_prefix = "GptOss",
     .family = "gpt-oss (mixture of experts)",
     .attention_sinks = true,
     .routing = Routing::top_k,
     .experts = ExpertForm::gpt_oss,
     .moe_layers = MoeLayers::every,
     .sliding = Sliding::even_layers,
     .hf = {.experts_field = "num_local_experts"},
     .build = build_gpt_oss,
     .builder_file = "gpt_oss.cpp"},
    {.id = Architecture::gemma3_text,
     .model_type = "gemma3_text",
     .class_prefix = "Gemma3",
     .family = "Gemma 3",
     .norm = Norm::rms_gemma,
     .sandwich_norms = true,
     .qk_norm = true,
     .sliding = Sliding::pattern,
     .local_rotary = true,
     .scaled_embeddings = true,
     // transformers' Gemma3TextConfig defaults, which the released text_configs rely on
     .hf = {.activation_field = "hidden_activation",
            .activation = Activation::gelu,
            .tied_embeddings = true,
            .defaults = R"({"vocab_size": 262208, "head_dim": 256})"},
     .build = build_gemma,
     .builder_file = "gemma.cpp"},
    {.id = Architecture::deepseek_v3,
     .model_type = "deepseek_v3",
     .class_prefix = "DeepseekV3",
     .family = "DeepSeek-V3 (latent attention, mixture of experts)",
     .latent_attention = true,
     .routing = Routing::top_k_shared,
     .shared_expert_gate = false,
     .moe_layers = MoeLayers::after_dense,
     .hf = {.experts_field = "n_routed_experts",
            .expert_width_field = "moe_intermediate_size",
            .norm_topk_field = "norm_topk_prob",
            .shared_experts_field = "n_shared_experts"},
     .build = build_mixtral,
     .builder_file = "mixtral.cpp"},
    // GLM-4.5 and GLM-4.6 (Glm4MoeForCausalLM): Llama's decoder with q/k/v biases
    // (attention_bias), rotary on the first partial_rotary_factor of each head's features, q and
    // k RMS-normed per head where use_qk_norm says, and DeepSeek-V3's mixture: dense layers first
    // (first_k_dense_replace), then top-k of n_routed_experts beside n_shared_experts ungated,
    // routed by sigmoid scores (forecast as a softmax top-k, as DeepSeek's). The config class
    // defaults partial_rotary_factor to 0.5; the multi-token-prediction layer is not run.
    {.id = Architecture::glm4_moe,
     .model_type = "glm4_moe",
     .class_prefix = "Glm4Moe",
     .family = "GLM-4.5 (mixture of experts)",
     .routing = Routing::top_k_shared,
     .shared_expert_gate = false,
     .moe_layers = MoeLayers::after_dense,
     .hf = {.experts_field = "n_routed_experts",
            .expert_width_field = "moe_intermediate_size",
            .norm_topk_field = "norm_topk_prob",
            .shared_experts_field = "n_shared_experts",
            .qk_norm_field = "use_qk_norm",
            .rotary_share_field = "partial_rotary_factor",
            .defaults = R"({"partial_rotary_factor": 0.5})"},
     .build = build_mixtral,
     .builder_file = "mixtral.cpp"},
    // Command R and R+ (CohereForCausalLM): Llama's attention and SwiGLU MLP in parallel on one
    // LayerNorm spelt out in FP32 (weight only), q and k cast to FP32 for an interleaved rotary,
    // the logits scaled; R+ norms q and k per head (use_qk_norm). The config class defaults
    // logit_scale to 0.0625 and ties the embeddings.
    {.id = Architecture::cohere,
     .model_type = "cohere",
     .class_prefix = "Cohere",
     .family = "Command R",
     .norm = Norm::layer_fp32,
     .parallel_residual = true,
     .fp32_rotary = true,
     .hf = {.tied_embeddings = true,
            .logit_scale_field = "logit_scale",
            .qk_norm_field = "use_qk_norm",
            .defaults = R"({"logit_scale": 0.0625})"},
     .build = build_llama,
     .builder_file = "llama.cpp"},
    // GPT-NeoX and Pythia (GPTNeoXForCausalLM): Falcon's parallel layer on two LayerNorms, one
    // query_key_value GEMM, rotary on the first rotary_pct of each head's features, a GELU MLP
    // with biases, an untied head. Its eager attention scales the scores by a multiply where
    // Falcon's divides: one element-wise kernel of the same size, forecast as Falcon's.
    {.id = Architecture::gpt_neox,
     .model_type = "gpt_neox",
     .class_prefix = "GPTNeoX",
     .family = "GPT-NeoX / Pythia",
     .norm = Norm::layer,
     .parallel_residual = true,
     .parallel_norms = 2,
     .fused_qkv = true,
     .attention_bias = AttentionBias::config_attention,
     .ffn = Ffn::dense,
     .hf = {.activation = Activation::gelu,
            .bias_default = true,
            .hidden_dropout_field = "hidden_dropout",
            .rotary_share_field = "rotary_pct",
            .parallel_field = "use_parallel_residual",
            .defaults = R"({"rotary_pct": 0.25})"},
     .build = build_falcon,
     .builder_file = "falcon.cpp"},
    // Llama 4 (Llama4ForCausalLM, a Llama4ForConditionalGeneration's text_config): Llama's layer
    // with chunked local attention (rotary as a complex multiply, q and k L2-normed where
    // use_qk_norm says) on three layers of four and global NoPE attention on the fourth (queries
    // scaled by a temperature of their position); experts on every interleave_moe_layer_step-th
    // layer (or the moe_layers listed): the top-1 logit through a sigmoid, one ungated shared
    // expert, each intermediate_size wide; the other layers a dense MLP of intermediate_size_mlp.
    // The config class's defaults where a config leaves a field out.
    {.id = Architecture::llama4_text,
     .model_type = "llama4_text",
     .class_prefix = "Llama4",
     .family = "Llama 4 (mixture of experts)",
     .qk_norm_unweighted = true,
     .complex_rotary = true,
     .global_nope = true,
     .routing = Routing::top_k_shared,
     .shared_expert_gate = false,
     .experts = ExpertForm::llama4,
     .moe_layers = MoeLayers::interleave,
     .sliding = Sliding::chunked,
     .hf =
         {.experts_field = "num_local_experts",
          .expert_width_field = "intermediate_size",
          .mlp_width_field = "intermediate_size_mlp",
          .shared_width_field = "intermediate_size",
          .qk_norm_field = "use_qk_norm",
          .defaults =
              R"({"intermediate_size_mlp": 16384, "num_experts_per_tok": 1, "use_qk_norm": true})"},
     .build = build_llama4,
     .builder_file = "llama4.cpp"},
};

}  // namespace

std::span<const ArchitectureTraits> architecture_table() { return kTable; }

const ArchitectureTraits& traits(Architecture a) {
  for (const auto& row : kTable)
    if (row.id == a) return row;
  throw Error("architecture " + std::to_string(int(a)) + " has no row in the architecture table");
}

std::string architecture_names(Stack s) {
  std::string names;
  for (const auto& row : kTable)
    if (row.stack == s) names += (names.empty() ? "" : ", ") + std::string(row.model_type);
  return names;
}

std::string_view stack_name(Stack s) {
  switch (s) {
    case Stack::decoder_only: return "decoder-only";
    case Stack::encoder: return "an encoder";
    case Stack::encoder_decoder: return "an encoder-decoder";
  }
  return "?";
}

bool out_proj_bias(const ModelConfig& m) {
  return m.attention_bias && traits(m).attention_bias != AttentionBias::qkv_only;
}

std::int64_t rotary_features(const ModelConfig& m) {
  return m.rotary_dim > 0 ? m.rotary_dim : m.head_dim;
}

bool qk_norm(const ModelConfig& m) { return traits(m).qk_norm || m.config_qk_norm; }

bool rotary_layer(const ModelConfig& m, bool local) {
  const ArchitectureTraits& t = traits(m);
  return t.positions == Positions::rotary && (local || !t.global_nope);
}

bool qk_norm_layer(const ModelConfig& m, bool local) {
  return qk_norm(m) && (local || !traits(m).global_nope);
}

}  // namespace tilecast
