// `tilecast serve`: a serving forecast (prefill, decode per token as the cache grows, request
// latency, throughput, memory and what fits) for B requests on one GPU or a TP group.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "command.hpp"
#include "io.hpp"
#include "megatron_forecast.hpp"
#include "serve_load.hpp"
#include "tilecast/api.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving.hpp"

namespace tilecast::cli {
namespace {

template <class T, class Parse>
T word(const Args& args, const char* flag, T fallback, Parse parse) {
  if (!args.has(flag)) return fallback;
  try {
    return parse(args.get(flag));
  } catch (const Error& e) {
    throw Error(std::string("--") + flag + ": " + e.what());
  }
}

// What the memory would hold past the tokens the model was trained for (nothing when within).
std::string beyond_model_context(const ModelConfig& model, std::int64_t memory_tokens) {
  if (model.max_context <= 0 || memory_tokens <= model.max_context) return "";
  return " (beyond the model's own " + std::to_string(model.max_context) + ")";
}

int run_serve(const Args& args) {
  const GpuSpec gpu = resolve_gpu(args.require("gpu"));
  const std::string model_arg = args.require("model");
  const ModelConfig model = resolve_model(model_arg);
  if (!args.has("prompt") && !args.has("trace"))
    throw Error("--prompt is required (prompt tokens per request)");
  if (!args.has("output") && !args.has("trace"))
    throw Error("--output is required (generated tokens per request)");
  constexpr std::int64_t kMax = std::int64_t{1} << 31;
  ServingRequest r;
  r.prompt = args.integer("prompt", 1, 1, kMax);
  r.output = args.integer("output", 1, 1, kMax);
  r.batch = args.integer("batch", 1, 1, kMax);
  r.tp = int(args.integer("tp", 1, 1, 1024));
  r.dtype = word(args, "precision", DataType::bf16, parse_dtype);
  r.engine = word(args, "engine", Engine::fused, parse_engine);
  r.predictor = word(args, "predictor", Predictor::tilecast, parse_predictor);
  if (args.has("kv-cache")) r.kv_cache = word(args, "kv-cache", DataType::bf16, parse_dtype);
  r.weights = word(args, "weights", WeightFormat::native, parse_weight_format);
  r.decode_attention =
      word(args, "decode-attention", DecodeAttention::grouped, parse_decode_attention);
  // the quantization and attention-kernel fields of a JSON request, when given
  auto kernels = [&](nlohmann::json& req) {
    if (r.kv_cache) req["kv_cache"] = std::string(dtype_name(*r.kv_cache));
    if (r.weights != WeightFormat::native)
      req["weights"] = std::string(weight_format_name(r.weights));
    if (args.has("decode-attention"))
      req["decode_attention"] = std::string(decode_attention_name(r.decode_attention));
  };

  auto price = [&](nlohmann::json& req) {
    if (args.has("price-per-gpu-hour"))
      req["price_per_gpu_hour"] = args.real("price-per-gpu-hour", "a price per GPU hour");
  };

  if (is_load_run(args)) {  // a request stream (docs/serving-load.md)
    if (args.has("batch"))
      throw Error(
          "--batch is for a static batch; under load the scheduler batches requests "
          "(--max-seqs, --max-batch-tokens)");
    nlohmann::json req = request_with(gpu, model_arg, model);
    if (args.has("prompt")) req["prompt"] = r.prompt;
    if (args.has("output")) req["output"] = r.output;
    req["tp"] = r.tp;
    req["precision"] = std::string(dtype_name(r.dtype));
    req["engine"] = std::string(engine_name(r.engine));
    req["predictor"] = std::string(predictor_name(r.predictor));
    kernels(req);
    price(req);
    add_load_fields(args, req);
    return print_load_run(req, args.has("json"));
  }
  refuse_simulation_flags_without_arrivals(args);
  // The static request as the API takes it: the --json answer, and the cost the text output
  // prints (api/cost.cpp, one definition).
  nlohmann::json req = request_with(gpu, model_arg, model);
  req["prompt"] = r.prompt;
  req["output"] = r.output;
  req["batch"] = r.batch;
  req["tp"] = r.tp;
  req["precision"] = std::string(dtype_name(r.dtype));
  req["engine"] = std::string(engine_name(r.engine));
  req["predictor"] = std::string(predictor_name(r.predictor));
  kernels(req);
  price(req);
  if (args.has("json")) {
    std::printf("%s\n", api::forecast_serving(req.dump()).c_str());
    return 0;
  }

  const ServingForecast f = forecast_serving(gpu, model, r);
  const ServingMemory& m = f.memory;
  std::printf("%s on %s%s: %s, %s engine, batch %lld, prompt %lld, output %lld (%s predictor)\n",
              model.name.c_str(), gpu.name.c_str(),
              r.tp > 1 ? (" x" + std::to_string(r.tp) + " (tensor parallel)").c_str() : "",
              std::string(dtype_name(r.dtype)).c_str(), std::string(engine_name(r.engine)).c_str(),
              static_cast<long long>(r.batch), static_cast<long long>(r.prompt),
              static_cast<long long>(r.output), std::string(predictor_name(r.predictor)).c_str());
  std::printf("  prefill (time to first token) %10.3f ms\n", f.prefill_ms);
  std::printf("  decode, mean per token        %10.3f ms\n", f.decode_ms_per_token);
  for (const auto& [context, ms] : f.decode_ms_at)
    std::printf("    at %8lld cached tokens     %10.3f ms\n", static_cast<long long>(context), ms);
  std::printf("  request latency               %10.3f ms\n", f.total_ms);
  if (f.band)
    std::printf("  80%% band                      x%.2f-%.2f of each time above\n", f.band->low,
                f.band->high);
  std::printf("  throughput                    %10.0f generated tokens/s\n", f.tokens_per_s);
  if (r.tp > 1) std::printf("  of which all-reduces          %10.3f ms\n", f.comm_ms);
  if (args.has("price-per-gpu-hour")) {  // the API's cost (api/cost.cpp), one definition
    print_cost(nlohmann::ordered_json::parse(api::forecast_serving(req.dump())));
  }
  std::printf("  KV cache                      %10.0f bytes per token\n",
              f.kv_cache_bytes_per_token);
  std::printf("\nmemory per GPU\n");
  std::printf(
      "  weights %8.2f GB\n  kv cache %7.2f GB\n  activations %4.2f GB\n"
      "  context %8.2f GB\n  total %10.2f GB of %.0f GB: %s\n",
      m.weights_gb, m.kv_cache_gb, m.activations_gb, m.context_gb, m.total_gb, m.capacity_gb,
      m.fits ? "fits" : "DOES NOT FIT");
  std::printf(
      "  largest batch at %lld tokens: %lld; longest context the memory holds at batch "
      "%lld: %lld tokens%s\n",
      static_cast<long long>(r.prompt + r.output), static_cast<long long>(f.max_batch),
      static_cast<long long>(r.batch), static_cast<long long>(f.max_context),
      beyond_model_context(model, f.max_context).c_str());
  for (const std::string& c : f.caveats) std::printf("\nnote: %s\n", c.c_str());
  return 0;
}

[[maybe_unused]] const bool serve_registered = register_command(
    {"serve",
     "--gpu NAME_OR_PATH --model NAME_OR_PATH --prompt N --output N [--batch B] [--tp N] "
     "[--precision " +
         enum_names_of(dtype_names(), kServingPrecisions, "|") + "] [--kv-cache fp8] [--weights " +
         enum_names_joined(weight_format_names(), "|") + "] [--decode-attention " +
         enum_names_joined(decode_attention_names(), "|") + "] [--engine " +
         enum_names_of(engine_names(), {Engine::fused, Engine::eager}, "|") + "] [--predictor " +
         enum_names_joined(predictor_names(), "|") +
         "] [--price-per-gpu-hour P (cost per million output tokens)] [--json]"
         "; under load: (--qps R | --concurrency C) --requests N [--trace FILE] [--seed S] "
         "[--range-ratio R (lengths uniform within +-R, as vLLM's random dataset)] "
         "[--slo-ttft-ms X --slo-tpot-ms Y] [--max-batch-tokens T] [--max-seqs S] "
         "[--scheduler " +
         enum_names_joined(scheduler_names(), "|") + "] [--batch-limits " +
         enum_names_joined(batch_limits_names(), "|") + "]",
     "forecast serving: a static batch (TTFT, decode per token, memory) or a request stream "
     "under load (latency percentiles, throughput)",
     with_flags(
         with_flags({"gpu", "model", "prompt", "output", "batch", "tp", "precision", "kv-cache",
                     "weights", "decode-attention", "engine", "predictor", "price-per-gpu-hour"},
                    load_arrival_flags()),
         load_simulation_flags()),
     {"json"},
     run_serve});

}  // namespace
}  // namespace tilecast::cli
