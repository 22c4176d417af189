// trtllm-bench's batch limits (header): its KV-cache estimate, caps and rounding, read from
// core/data/engines/serving.json "trtllm_bench" (the TensorRT-LLM source is cited there).
#include "serve/simulator/batch_limits.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/json_fields.hpp"
#include "common/name_key.hpp"
#include "serve/fixed_costs.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast {
namespace {

constexpr EnumName<BatchLimits> kBatchLimitsNames[] = {{"fixed", BatchLimits::fixed},
                                                       {"trtllm-bench", BatchLimits::trtllm_bench}};

}  // namespace

EnumNames<BatchLimits> batch_limits_names() { return kBatchLimitsNames; }
std::string_view batch_limits_name(BatchLimits b) { return enum_name(batch_limits_names(), b); }
BatchLimits parse_batch_limits(std::string_view word) {
  return parse_enum(batch_limits_names(), word, "batch limits");
}

namespace detail {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// A value rounded up by the first band it falls below ([below, multiple], below 0: the rest);
// the first band's result at least `floor`.
struct Band {
  double below = 0, multiple = 1;
};

struct BenchRules {
  double kv_fraction = 0, max_requests = 0, max_tokens = 0, min_batch = 0, min_tokens = 0;
  std::vector<Band> batch_steps, token_steps;
  bool chunked_prefill = false;
};

const BenchRules& bench_rules() {
  static const BenchRules rules = [] {
    const nlohmann::json& all = serving_engines_json();
    if (!all.contains("trtllm_bench") || !all["trtllm_bench"].is_object())
      throw Error(std::string(kServingEnginesPath) + ": object 'trtllm_bench' is missing");
    const nlohmann::json& j = all["trtllm_bench"];
    const std::string where = std::string(kServingEnginesPath) + ": trtllm_bench";
    auto bands = [&](const char* key) {
      std::vector<Band> out;
      if (j.contains(key) && j[key].is_array())
        for (const auto& b : j[key])
          if (b.is_array() && b.size() == 2 && b[0].is_number() && b[1].is_number() &&
              b[1].get<double>() >= 1 && b[0].get<double>() >= 0)
            out.push_back({b[0].get<double>(), b[1].get<double>()});
      if (out.empty() || out.size() != j[key].size() || out.back().below != 0)
        throw Error(where + "." + key +
                    " must be [[below, multiple], ...] ending with [0, multiple] (the rest)");
      return out;
    };
    BenchRules r;
    r.kv_fraction = detail::number_field(j, "kv_cache_free_gpu_mem_fraction", where, 0.01, 1);
    r.max_requests = detail::number_field(j, "max_requests", where, 1, 1e6);
    r.max_tokens = detail::number_field(j, "max_tokens", where, 1, 1e7);
    r.min_batch = detail::number_field(j, "min_batch", where, 1, 1e6);
    r.min_tokens = detail::number_field(j, "min_tokens", where, 1, 1e7);
    r.batch_steps = bands("batch_steps");
    r.token_steps = bands("token_steps");
    if (!j.contains("chunked_prefill") || !j["chunked_prefill"].is_boolean())
      throw Error(where + ".chunked_prefill must be true or false");
    r.chunked_prefill = j["chunked_prefill"].get<bool>();
    return r;
  }();
  return rules;
}

double round_up(double raw, const std::vector<Band>& bands, double floor) {
  for (std::size_t i = 0; i < bands.size(); ++i)
    if (bands[i].below == 0 || raw < bands[i].below) {
      const double v = bands[i].multiple * std::ceil(raw / bands[i].multiple);
      return i == 0 ? std::max(floor, v) : v;
    }
  return raw;  // unreachable: the last band takes the rest
}

}  // namespace

VllmBatchDefaults vllm_batch_defaults(const GpuSpec& gpu) {
  struct Rule {
    double large_memory_bytes = 0;
    std::string excluded;
    VllmBatchDefaults large, other;
  };
  static const Rule rule = [] {
    const nlohmann::json& all = serving_engines_json();
    const std::string where = std::string(kServingEnginesPath) + ": vllm_batch_defaults";
    if (!all.contains("vllm_batch_defaults") || !all["vllm_batch_defaults"].is_object())
      throw Error(where + " is missing");
    const nlohmann::json& j = all["vllm_batch_defaults"];
    auto limits = [&](const char* key) {
      if (!j.contains(key) || !j[key].is_object()) throw Error(where + "." + key + " is missing");
      const std::string at = where + "." + key;
      return VllmBatchDefaults{
          std::int64_t(detail::number_field(j[key], "max_seqs", at, 1, double(kMaxSeqsPerStep))),
          std::int64_t(detail::number_field(j[key], "max_batch_tokens", at, 1,
                                            double(kMaxBatchTokensPerStep)))};
    };
    Rule r;
    r.large_memory_bytes = detail::number_field(j, "large_memory_gib", where, 1, 1e6) * kGiB;
    if (!j.contains("excluded_name") || !j["excluded_name"].is_string())
      throw Error(where + ".excluded_name must be a name");
    r.excluded = j["excluded_name"].get<std::string>();
    r.large = limits("large");
    r.other = limits("other");
    return r;
  }();
  // vLLM compares its device name in lower case: the names' keys (lower case, no separators)
  const bool excluded = name_key(gpu.name).find(name_key(rule.excluded)) != std::string::npos;
  return device_memory_bytes(gpu) >= rule.large_memory_bytes && !excluded ? rule.large : rule.other;
}

TrtllmBenchLimits trtllm_bench_limits(const GpuSpec& gpu, const ModelConfig& model, int tp,
                                      const ServingTypes& types, double params,
                                      double quantized_params, double mean_prompt,
                                      double mean_output, std::int64_t longest_prompt) {
  const BenchRules& b = bench_rules();
  if (types.weights != WeightFormat::native && types.weights != WeightFormat::mxfp4)
    throw Error(
        "batch limits trtllm-bench: trtllm-bench tunes FP8, NVFP4, MXFP4 and unquantized "
        "checkpoints, not weight-only " +
        std::string(weight_format_name(types.weights)) + "; give max_seqs and max_batch_tokens");
  if (!(mean_prompt >= 1 && mean_output >= 1))
    throw Error("batch limits trtllm-bench: the requests' mean prompt and output must be >= 1");
  // bytes per weight and per cached element: FP8 1, NVFP4 0.5, anything else 2 (tuning.py)
  const double weight_bytes = types.gemm == DataType::fp8   ? 1.0
                              : types.gemm == DataType::fp4 ? 0.5
                                                            : 2.0;
  const double kv_bytes = types.kv == DataType::fp8 ? 1.0 : 2.0;
  // every GPU holds at least one KV head
  const double kv_heads = double(std::max<std::int64_t>(tp, model.num_kv_heads));
  // (latent attention: each GPU caches the whole latent)
  const double gib_per_token =
      (model.kv_lora_rank > 0
           ? double(tp) * double(model.num_layers) *
                 double(model.kv_lora_rank + model.qk_rope_head_dim) * kv_bytes
           : 2 * double(model.num_layers) * kv_heads * double(model.head_dim) * kv_bytes) /
      kGiB;
  // An MXFP4 checkpoint (gpt-oss) stores its packed experts as bytes (U8 safetensors), and
  // trtllm-bench counts the checkpoint's stored elements as its parameters
  // (tensorrt_llm/bench/build/dataclasses.py, ModelConfig.get_param_count: the safetensors
  // metadata's parameter count) at 2 bytes each (its quantization algorithm has no entry in
  // tuning.py's BYTES_PER_ELEM): a packed weight's bytes are its stored elements.
  const double stored = types.weights == WeightFormat::mxfp4
                            ? params - quantized_params * (1 - types.weight_bytes)
                            : params;
  const double engine_gib = stored * weight_bytes / kGiB;
  const double available_gib = device_memory_bytes(gpu) / kGiB * double(tp) - engine_gib;
  const double requests =
      available_gib * b.kv_fraction / (gib_per_token * (mean_prompt + mean_output));
  if (!(requests >= 1))
    throw Error("batch limits trtllm-bench: " + model.name + " leaves no KV cache for one " +
                "request on " + std::to_string(tp) + " x " + gpu.name +
                " (trtllm-bench refuses this mapping)");
  const double raw_batch = std::min(requests, b.max_requests);
  const double raw_tokens = std::min(raw_batch * (1 + mean_prompt / mean_output), b.max_tokens);
  TrtllmBenchLimits out;
  out.kv_requests = requests;
  out.max_batch_size = std::int64_t(round_up(raw_batch, b.batch_steps, b.min_batch));
  out.max_num_tokens = std::int64_t(round_up(raw_tokens, b.token_steps, b.min_tokens));
  // chunked prefill off: a whole prompt and a full decode batch fit one step
  if (!b.chunked_prefill)
    out.max_num_tokens = std::max(out.max_num_tokens, longest_prompt + out.max_batch_size);
  return out;
}

}  // namespace detail
}  // namespace tilecast
