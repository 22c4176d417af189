// `tilecast serve`: a serving forecast (prefill, decode per token as the cache grows, request
// latency, throughput, memory and what fits) for B requests on one GPU or a TP group.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "answer_text.hpp"
#include "command.hpp"
#include "io.hpp"
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
// A static batch's forecast, printed from the API's JSON (the --json answer, one path for both).
void print_static(const nlohmann::ordered_json& j) {
  const long long tp = j["tp"].get<long long>(), batch = j["batch"].get<long long>();
  const long long tokens = j["prompt"].get<long long>() + j["output"].get<long long>();
  std::printf("%s on %s%s: %s, %s engine, batch %lld, prompt %lld, output %lld (%s predictor)\n",
              j["model"]["name"].get<std::string>().c_str(),
              j["gpu"]["name"].get<std::string>().c_str(),
              tp > 1 ? (" x" + std::to_string(tp) + " (tensor parallel)").c_str() : "",
              j["precision"].get<std::string>().c_str(), j["engine"].get<std::string>().c_str(),
              batch, j["prompt"].get<long long>(), j["output"].get<long long>(),
              j["predictor"].get<std::string>().c_str());
  std::printf("  prefill (time to first token) %10.3f ms\n", j["prefill_ms"].get<double>());
  std::printf("  decode, mean per token        %10.3f ms\n",
              j["decode_ms_per_token"].get<double>());
  for (const auto& [context, ms] : j["decode_ms_at"].items())
    std::printf("    at %8s cached tokens     %10.3f ms\n", context.c_str(), ms.get<double>());
  std::printf("  request latency               %10.3f ms\n", j["total_ms"].get<double>());
  if (!j["band"].is_null())
    std::printf("  80%% band                      x%.2f-%.2f of each time above\n",
                j["band"]["low"].get<double>(), j["band"]["high"].get<double>());
  std::printf("  throughput                    %10.0f generated tokens/s\n",
              j["tokens_per_s"].get<double>());
  if (tp > 1)
    std::printf("  of which all-reduces          %10.3f ms\n", j["comm_ms"].get<double>());
  print_cost(j);
  std::printf("  KV cache                      %10.0f bytes per token\n",
              j["kv_cache_bytes_per_token"].get<double>());
  const auto& m = j["memory"];
  std::printf("\nmemory per GPU\n");
  std::printf(
      "  weights %8.2f GB\n  kv cache %7.2f GB\n  activations %4.2f GB\n"
      "  context %8.2f GB\n  total %10.2f GB of %.0f GB: %s\n",
      m["weights_gb"].get<double>(), m["kv_cache_gb"].get<double>(),
      m["activations_gb"].get<double>(), m["context_gb"].get<double>(), m["total_gb"].get<double>(),
      m["capacity_gb"].get<double>(), m["fits"].get<bool>() ? "fits" : "DOES NOT FIT");
  const long long max_context = j["max_context"].get<long long>();
  const long long model_context = j["model_context"].get<long long>();  // 0: none stated
  std::printf(
      "  largest batch at %lld tokens: %lld; longest context the memory holds at batch "
      "%lld: %lld tokens%s\n",
      tokens, j["max_batch"].get<long long>(), batch, max_context,
      model_context > 0 && max_context > model_context
          ? (" (beyond the model's own " + std::to_string(model_context) + ")").c_str()
          : "");
  for (const auto& c : j["caveats"]) std::printf("\nnote: %s\n", c.get<std::string>().c_str());
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
  r.ep = int(args.integer("ep", 1, 1, 1024));
  r.dtype = word(args, "precision", DataType::bf16, parse_dtype);
  r.engine = word(args, "engine", Engine::fused, parse_engine);
  r.predictor = word(args, "predictor", Predictor::tilecast, parse_predictor);
  if (args.has("kv-cache")) r.kv_cache = word(args, "kv-cache", DataType::bf16, parse_dtype);
  r.weights = word(args, "weights", WeightFormat::native, parse_weight_format);
  r.decode_attention =
      word(args, "decode-attention", DecodeAttention::grouped, parse_decode_attention);
  // The API request both kinds of run share: the model on the GPU, tensor parallelism, precision,
  // engine and predictor, the quantization and attention-kernel fields and the price when given.
  auto request = [&] {
    nlohmann::json req = request_with(gpu, model_arg, model);
    req["tp"] = r.tp;
    if (args.has("ep")) req["ep"] = r.ep;
    req["precision"] = std::string(dtype_name(r.dtype));
    req["engine"] = std::string(engine_name(r.engine));
    req["predictor"] = std::string(predictor_name(r.predictor));
    if (r.kv_cache) req["kv_cache"] = std::string(dtype_name(*r.kv_cache));
    if (args.has("weights"))  // else the checkpoint's own (serving.hpp checkpoint_weight_format)
      req["weights"] = std::string(weight_format_name(r.weights));
    if (args.has("decode-attention"))
      req["decode_attention"] = std::string(decode_attention_name(r.decode_attention));
    if (args.has("price-per-gpu-hour"))
      req["price_per_gpu_hour"] = args.real("price-per-gpu-hour", "a price per GPU hour");
    return req;
  };

  if (is_load_run(args)) {  // a request stream (docs/serving-load.md)
    if (args.has("batch"))
      throw Error(
          "--batch is for a static batch; under load the scheduler batches requests "
          "(--max-seqs, --max-batch-tokens)");
    nlohmann::json req = request();
    if (args.has("prompt")) req["prompt"] = r.prompt;
    if (args.has("output")) req["output"] = r.output;
    add_load_fields(args, req);
    return print_answer(args.has("json"), api::forecast_serving(req.dump()), print_load_run);
  }
  refuse_simulation_flags_without_arrivals(args);
  // The static request as the API takes it: the --json answer, and the text printed from it.
  nlohmann::json req = request();
  req["prompt"] = r.prompt;
  req["output"] = r.output;
  req["batch"] = r.batch;
  return print_answer(args.has("json"), api::forecast_serving(req.dump()), print_static);
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
         "[--ep N (a mixture of experts: expert parallel over N GPUs, attention data parallel)] "
         "[--range-ratio R (lengths uniform within +-R, as vLLM's random dataset)] "
         "[--slo-ttft-ms X --slo-tpot-ms Y] [--max-batch-tokens T] [--max-seqs S] "
         "[--scheduler " +
         enum_names_joined(scheduler_names(), "|") + "] [--batch-limits " +
         enum_names_joined(batch_limits_names(), "|") + "]",
     "forecast serving: a static batch (TTFT, decode per token, memory) or a request stream "
     "under load (latency percentiles, throughput)",
     with_flags(with_flags({"gpu", "model", "prompt", "output", "batch", "tp", "ep", "precision",
                            "kv-cache", "weights", "decode-attention", "engine", "predictor",
                            "price-per-gpu-hour"},
                           load_arrival_flags()),
                load_simulation_flags()),
     {"json"},
     run_serve});

}  // namespace
}  // namespace tilecast::cli
