// Expert parallelism with attention data parallelism, as engines serve a mixture of experts over
// several GPUs (TensorRT-LLM's attention DP with EP, its "DEP"; vLLM's --data-parallel-size with
// --enable-expert-parallel; SGLang's --enable-dp-attention): each of the `ep` GPUs runs its own
// requests (their attention, K/V cache and dense layers whole), the routed experts are spread
// over the GPUs, and every MoE layer sends each token to its experts' GPUs and its outputs back
// (two all-to-alls). Decided here for the load simulator, its step times and its memory.
#pragma once

#include <cstdint>

#include "serve/quantize.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast::detail {

// One GPU's model: ModelConfig::expert_shards = ep (graph/blocks: routed_experts). Throws Error
// naming ep and what is allowed: a top-k mixture of experts, ep dividing its routed experts,
// tp 1 (each GPU runs whole attention heads), 1 to 1024 GPUs.
ModelConfig expert_shard(const ModelConfig& model, int ep, int tp);

// The routed experts' parameters in the whole model (of every expert, as the fused engine's graph
// lists them), and of those the ones `t`'s quantization covers (is_quantized_linear): one pass.
struct RoutedExpertParams {
  double all = 0, quantized = 0;
};
RoutedExpertParams routed_expert_params(const GpuSpec& gpu, const ModelConfig& model,
                                        const ServingTypes& t);

// The layers with routed experts.
std::int64_t moe_layer_count(const ModelConfig& model);

// The bytes one GPU sends in a step's dispatch all-to-all (and again in its combine) for
// `tokens` of its own tokens: each token's hidden state to each of its top-k experts, in the
// activations' type (as the Megatron engine counts its dispatch).
double dispatch_bytes(const ModelConfig& model, std::int64_t tokens, DataType act);

}  // namespace tilecast::detail
