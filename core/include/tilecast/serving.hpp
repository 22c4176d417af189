// A serving forecast (docs/serving.md): B requests of `prompt` tokens each, prefilled
// together, then decoded together for `output` tokens on one GPU or a tensor-parallel group:
// time to first token, decode time per token as the KV cache grows, request latency and
// throughput; KV-cache bytes and a memory breakdown with the largest batch and context that fit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilecast/error_bands.hpp"
#include "tilecast/footing.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast {

// The longest prompt or output (tokens) and the largest batch a serving request may ask for.
inline constexpr std::int64_t kMaxServingTokens = std::int64_t{1} << 31;

// How the layers' linear weights are stored: in the precision's type (native), or packed for
// weight-only quantization (AWQ / GPTQ style: INT8, or INT4 in groups of 128 with FP16 scales;
// MXFP4, gpt-oss's checkpoint format, on the routed experts only), read at their packed width
// and dequantized (serve/quantize.cpp, where each format's row says what it covers).
enum class WeightFormat { native, int8, int4, mxfp4 };
std::string_view weight_format_name(WeightFormat w);      // "native" | "int8" | "int4" | "mxfp4"
WeightFormat parse_weight_format(std::string_view word);  // throws Error listing them
// What a request that names no weight format serves: the checkpoint's own (a config's
// quantization_config, ModelConfig::checkpoint_weights: gpt-oss's MXFP4 experts) at fp16 or
// bf16 activations, else native (fp8 and fp4 quantize every linear themselves).
WeightFormat checkpoint_weight_format(const ModelConfig& model, DataType precision);
// The quantization_config.quant_method values a model config may name (model_config.cpp).
std::vector<std::string_view> checkpoint_quant_methods();

// How a decode step's attention kernel reads a grouped-query model's K/V cache: once per K/V head
// (grouped: what GQA-aware decode kernels do, e.g. TensorRT-LLM's XQA since v0.8, FlashAttention's
// and FlashInfer's decode), or once per query head (per-query-head: TensorRT-LLM's masked
// multi-head attention kernel before XQA, one thread block per query head). Prefill is unchanged.
enum class DecodeAttention { grouped, per_query_head };
std::string_view decode_attention_name(DecodeAttention a);      // "grouped" | "per-query-head"
DecodeAttention parse_decode_attention(std::string_view word);  // throws Error listing them

struct ServingRequest {
  std::int64_t prompt = 512;  // tokens per request
  std::int64_t output = 128;  // generated tokens per request (the first comes from prefill)
  std::int64_t batch = 1;
  int tp = 1;  // tensor-parallel GPUs
  // expert-parallel GPUs with attention data parallelism (a mixture of experts under load:
  // serve/expert_parallel.hpp): each runs its own requests, the routed experts spread over them
  int ep = 1;
  int gpus() const { return tp * ep; }  // one replica's
  // fp16 / bf16 / fp32: every kernel in it; fp8: W8A8, the layers' linear GEMMs at the FP8
  // peak behind an activation quantize, the rest BF16 (tilecast/enum_names.hpp activation_dtype)
  DataType dtype = DataType::bf16;
  std::optional<DataType> kv_cache;  // the KV cache's type; none: the activations' (fp8 allowed)
  WeightFormat weights = WeightFormat::native;
  DecodeAttention decode_attention = DecodeAttention::grouped;
  Engine engine = Engine::fused;
  Predictor predictor = Predictor::tilecast;
};

// Memory per GPU, GB (10^9 bytes).
struct ServingMemory {
  double weights_gb = 0;      // parameters x bytes(their type or packed width) / tp
  double kv_cache_gb = 0;     // KV-cache bytes per token x batch x (prompt + output)
  double activations_gb = 0;  // the largest step's live activations (prefill; rule in memory.cpp)
  double context_gb = 0;      // CUDA context and framework (a stated constant)
  double total_gb = 0;
  double capacity_gb = 0;  // the GPU's memory
  bool fits = false;
};

struct ServingForecast {
  ServingRequest request;
  double prefill_ms = 0;           // the batch's prompts together: time to first token
  double decode_ms_per_token = 0;  // mean time per output token after the first (TPOT)
  double decode_total_ms = 0;      // the output - 1 decode steps
  // One decode step at the sampled cache lengths (tokens already cached), ascending.
  std::vector<std::pair<std::int64_t, double>> decode_ms_at;
  double total_ms = 0;      // request latency: prefill + decode
  double tokens_per_s = 0;  // generated tokens per second over the decode phase at the batch
  double comm_ms = 0;       // of total_ms: tensor-parallel all-reduces (0 at tp 1)
  double kv_cache_bytes_per_token = 0;  // per sequence, per GPU
  ServingMemory memory;
  std::int64_t max_batch = 0;          // at prompt + output tokens per sequence
  std::int64_t max_context = 0;        // tokens per sequence at the request's batch
  std::string comm_model;              // how the all-reduces were forecast (empty at tp 1)
  Footing footing = Footing::learned;  // what the forecast stands on (tilecast/footing.hpp)
  // The 80% band as multipliers of every latency above (prefill, each decode step, the
  // request): the whole-model inference band (tilecast/error_bands.hpp); none for the roofline
  // predictor or a build without bands.
  std::optional<ErrorBand> band;
  std::vector<std::string> caveats;
};

// KV-cache bytes one token of one sequence takes on each GPU: 2 (K and V) x layers x
// key/value heads per GPU x head_dim x bytes(dtype).
double kv_cache_bytes_per_token(const ModelConfig& model, DataType dtype, int tp = 1);

// Throws Error for a bad request (lengths, tp not dividing the heads), a precision the GPU
// has no units for (naming the GPU's precisions), a model that cannot decode (an encoder).
ServingForecast forecast_serving(const GpuSpec& gpu, const ModelConfig& model,
                                 const ServingRequest& request);

// The API's response (api::forecast_serving), as JSON text.
std::string serving_forecast_to_json(const GpuSpec& gpu, const ModelConfig& model,
                                     const ServingForecast& f);

}  // namespace tilecast
