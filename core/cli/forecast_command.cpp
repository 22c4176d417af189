// `tilecast forecast`: one model's training step, inference pass, prefill or decode step
// on one GPU.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "answer_text.hpp"
#include "command.hpp"
#include "io.hpp"
#include "megatron_forecast.hpp"
#include "tilecast/api.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/parallel.hpp"
#include "weights_flag.hpp"

namespace tilecast::cli {
namespace {

constexpr const char* kParallelFlags[] = {"gpus",         "dp",    "tp",        "pp",
                                          "microbatches", "zero",  "recompute", "schedule",
                                          "bucket-mb",    "system"};

// The multi-GPU training step's text view, printed from the API's answer.
void print_parallel(const nlohmann::ordered_json& j) {
  const auto& p = j["parallel"];
  std::printf("%s on %d x %s (%s): training, global batch %lld, seq %lld, %s\n",
              j["model"]["name"].get<std::string>().c_str(), p["gpus"].get<int>(),
              j["gpu"]["name"].get<std::string>().c_str(), p["system"].get<std::string>().c_str(),
              j["batch"].get<long long>(), j["seq"].get<long long>(),
              j["precision"].get<std::string>().c_str());
  std::printf("  dp %d x tp %d x pp %d, %d micro-batches of %lld, ZeRO %d, recompute %s, %s\n",
              p["dp"].get<int>(), p["tp"].get<int>(), p["pp"].get<int>(),
              p["microbatches"].get<int>(), p["microbatch_size"].get<long long>(),
              p["zero"].get<int>(), p["recompute"].get<std::string>().c_str(),
              p["schedule"].get<std::string>().c_str());
  std::printf("  step         %10.3f ms   (bubble %.1f%% of the critical stage)\n",
              j["step_ms"].get<double>(), 100 * j["bubble_fraction"].get<double>());
  std::printf("  micro-batch  %10.3f ms forward, %.3f ms backward (slowest stage)\n",
              j["forward_ms"].get<double>(), j["backward_ms"].get<double>());
  std::printf("  throughput   %10.2f samples/s, %.0f tokens/s, %.0f tokens/s per GPU\n",
              j["samples_per_s"].get<double>(), j["tokens_per_s"].get<double>(),
              j["tokens_per_s_per_gpu"].get<double>());
  print_utilization(j);
  print_cost(j);
  print_breakdown(j["breakdown"], j["step_ms"].get<double>(), " (critical stage)");
  std::printf("\n  %-6s %12s %12s %12s %12s\n", "stage", "compute ms", "comm ms", "exposed ms",
              "bubble ms");
  for (const auto& s : j["stages"])
    std::printf("  %-6d %12.3f %12.3f %12.3f %12.3f\n", s["stage"].get<int>(),
                s["compute_busy_ms"].get<double>(), s["comm_busy_ms"].get<double>(),
                s["exposed_comm_ms"].get<double>(), s["bubble_ms"].get<double>());
  print_training_footer(j, "stage");
}

// The multi-GPU training step (docs/parallel.md).
int run_parallel(const Args& args, nlohmann::json req) {
  for (const char* f : kParallelFlags) {
    if (!args.has(f)) continue;
    const std::string key = std::string(f) == "bucket-mb" ? "bucket_mb" : f;
    const std::string v = args.get(f);
    if (key == "recompute" || key == "schedule") {
      req[key] = v;
    } else if (key == "system") {
      req[key] = is_regular_file(v) ? nlohmann::json::parse(read_text_file(v)) : nlohmann::json(v);
    } else if (key == "bucket_mb") {
      req[key] = parse_number("bucket-mb", v, "megabytes; DDP's default 25");
    } else {
      req[key] = args.integer(f, 0, key == "zero" ? 0 : 1, 65536);
    }
  }
  if (args.has("price-per-gpu-hour"))
    req["price_per_gpu_hour"] = args.real("price-per-gpu-hour", "a price per GPU hour");
  return print_answer(args.has("json"), api::forecast_model(req.dump()), print_parallel);
}

// The one-GPU forecast, printed from the API's JSON (the --json answer, one path for both).
void print_one_gpu(const nlohmann::ordered_json& j) {
  const auto& w = j["workload"];
  const std::string mode = j["mode"].get<std::string>();
  const double latency = j["latency_ms"].get<double>();
  std::printf("%s on %s: %s, batch %lld, seq %lld", j["model"]["name"].get<std::string>().c_str(),
              j["gpu"]["name"].get<std::string>().c_str(), mode.c_str(),
              j["batch"].get<long long>(), j["seq"].get<long long>());
  if (mode == "decode")
    std::printf(", one token against %lld cached", w["context_len"].get<long long>() - 1);
  std::printf(" (%s predictor, %s, %s)\n", j["predictor"].get<std::string>().c_str(),
              j["precision"].get<std::string>().c_str(),
              j["engine"] == "compiled" ? "torch.compile" : "PyTorch eager");
  std::printf("  latency      %10.3f ms   (roofline bound %.3f ms)\n", latency,
              j["roofline_latency_ms"].get<double>());
  if (!j["band_high_ms"].is_null())
    std::printf("  80%% band     %.3f-%.3f ms (out-of-architecture residuals)\n",
                j["band_low_ms"].get<double>(), j["band_high_ms"].get<double>());
  std::printf("  forward      %10.3f ms\n", j["forward_ms"].get<double>());
  if (mode == "training")
    std::printf("  backward     %10.3f ms   (gradient accumulation %.3f ms)\n",
                j["backward_ms"].get<double>(), j["accumulate_ms"].get<double>());
  std::printf("  throughput   %10.2f samples/s, %.0f tokens/s%s\n",
              j["samples_per_s"].get<double>(), j["tokens_per_s"].get<double>(),
              mode == "decode"    ? " generated"
              : mode == "prefill" ? " of prompt"
                                  : "");
  std::printf("  kernels      %10lld launches, %.4g TFLOP; isolated latencies sum to %.3f ms\n",
              j["kernels"].get<long long>(), j["flops"].get<double>() / 1e12,
              j["kernel_sum_ms"].get<double>());
  print_utilization(j);
  print_cost(j);
  print_breakdown(j["breakdown"], latency, "");
  std::printf("\n  %-26s %6s %12s %12s %12s\n", "layer", "count", "forward ms", "backward ms",
              "total ms");
  for (const auto& l : j["layers"])
    std::printf("  %-26s %6lld %12.4f %12.4f %12.3f\n", l["name"].get<std::string>().c_str(),
                l["count"].get<long long>(), l["forward_ms"].get<double>(),
                l["backward_ms"].get<double>(), l["total_ms"].get<double>());
  if (!j["substitutions"].empty()) {
    std::printf("\nforecast by the closest measured kernel class:\n");
    for (const auto& s : j["substitutions"])
      std::printf("  %-30s as %s\n", s["kernel"].get<std::string>().c_str(),
                  s["forecast_as"].get<std::string>().c_str());
  }
  for (const auto& c : j["caveats"]) std::printf("\nnote: %s\n", c.get<std::string>().c_str());
  const auto& m = j["memory"];
  std::printf("\nmemory (one GPU%s): %.2f GB of %.2f GB, %s\n", mode == "training" ? ", Adam" : "",
              m["total_gb"].get<double>(), m["capacity_gb"].get<double>(),
              m["fits"].get<bool>() ? "fits" : "does NOT fit");
  const char* sep = "  ";  // its parts: every "<part>_gb" but the total and the capacity
  for (const auto& [k, v] : m.items()) {
    if (k.size() <= 3 || k.compare(k.size() - 3, 3, "_gb") != 0 || k == "total_gb" ||
        k == "capacity_gb")
      continue;
    std::printf("%s%s %.2f", sep, k.substr(0, k.size() - 3).c_str(), v.get<double>());
    sep = ", ";
  }
  std::printf(" GB\n");
  if (j.contains("finetune")) {
    const auto& f = j["finetune"];
    std::printf(
        "\n%s, rank %lld on %s: %lld adapted linears, %.4g trainable and %.4g frozen "
        "parameters\n",
        f["method"].get<std::string>().c_str(), f["rank"].get<long long>(),
        f["targets"].get<std::string>().c_str(), f["adapted_linears"].get<long long>(),
        f["trainable_params"].get<double>(), f["frozen_params"].get<double>());
    for (const auto& a : f["assumptions"]) std::printf("note: %s\n", a.get<std::string>().c_str());
  }
}

int run_forecast(const Args& args) {
  apply_weights_flag(args);
  const GpuSpec gpu = resolve_gpu(args.require("gpu"));
  const std::string model_arg = args.require("model");
  const ModelConfig model = resolve_model(model_arg);
  const std::int64_t batch = args.integer("batch", 1, 1, std::int64_t{1} << 31);
  const std::int64_t seq = args.integer("seq", 0, 1, std::int64_t{1} << 31);
  if (!args.has("seq")) throw Error("--seq is required (the sequence length in tokens)");
  Mode mode_value = Mode::inference;
  try {
    mode_value = parse_mode(args.get("mode", "inference"));
  } catch (const Error& e) {
    throw Error(std::string("--mode: ") + e.what());
  }
  const std::string mode(mode_name(mode_value));
  if (args.has("context") && mode_value != Mode::decode)
    throw Error("--context (the cache length) applies to --mode decode only");
  const std::int64_t context = args.integer("context", 0, 1, std::int64_t{1} << 31);
  Workload w = make_workload(mode_value, batch, seq, context);
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  const std::string engine_word = args.get("engine", args.has("compile") ? "compiled" : "eager");
  if (engine_word == kMegatronEngine) {
    if (args.has("finetune"))
      throw Error("--finetune (LoRA / QLoRA) applies to --engine " +
                  enum_names_of(engine_names(), kModelEngines, " or ") + ", one GPU");
    nlohmann::json req = request_with(gpu, model_arg, model);
    req["batch"] = w.batch;
    req["seq"] = seq;
    req["mode"] = mode;
    req["predictor"] = predictor_name(predictor);
    if (args.has("precision")) req["precision"] = args.get("precision");
    if (args.has("master-weights")) req["master_weights"] = args.get("master-weights");
    return run_megatron(args, req);
  }
  for (const char* f : kMegatronFlags)
    if (args.has(f)) throw Error(std::string("--") + f + " applies to --engine megatron only");
  for (const char* f : kMegatronSwitches)
    if (args.has(f)) throw Error(std::string("--") + f + " applies to --engine megatron only");
  Engine engine = Engine::eager;
  try {
    engine = parse_engine(engine_word);
  } catch (const Error& e) {
    throw Error(std::string("--engine: ") + e.what() + ", " + std::string(kMegatronEngine) +
                " (training on many GPUs)");
  }
  if (engine == Engine::fused)
    throw Error("--engine fused is the serving engine (tilecast serve); here: " +
                enum_names_of(engine_names(), kModelEngines, ", ") + ", " +
                std::string(kMegatronEngine));
  if (args.has("precision")) {
    w.dtype = parse_dtype(args.get("precision", "fp32"));
    if (std::find(std::begin(kModelPrecisions), std::end(kModelPrecisions), w.dtype) ==
        std::end(kModelPrecisions))
      throw Error("--precision: allowed " + enum_names_of(dtype_names(), kModelPrecisions, ", "));
    require_precision(gpu, w.dtype);
  }

  // --finetune lora|qlora [--lora-rank R] [--lora-targets T]: the API's request field, which
  // validates it
  nlohmann::json finetune;
  if (args.has("finetune")) {
    finetune["method"] = args.get("finetune");
    if (args.has("lora-rank")) finetune["rank"] = args.integer("lora-rank", 16, 1, kMaxLoraRank);
    if (args.has("lora-targets")) finetune["targets"] = args.get("lora-targets");
  } else if (args.has("lora-rank") || args.has("lora-targets")) {
    throw Error("--lora-rank and --lora-targets apply with --finetune " +
                enum_names_of(finetune_method_names(), kFinetuneMethods, "|"));
  }

  for (const char* f : kParallelFlags)
    if (args.has(f)) {
      nlohmann::json req = request_with(gpu, model_arg, model);
      if (!finetune.is_null()) req["finetune"] = finetune;
      req["batch"] = w.batch;
      req["seq"] = seq;
      req["mode"] = mode;
      req["predictor"] = predictor_name(predictor);
      if (engine != Engine::eager) req["engine"] = engine_name(engine);
      if (args.has("precision")) req["precision"] = dtype_name(w.dtype);
      if (args.has("master-weights")) req["master_weights"] = args.get("master-weights");
      return run_parallel(args, req);
    }

  // The one-GPU request as the API takes it: the --json answer, and the text printed from it.
  nlohmann::json req = request_with(gpu, model_arg, model);
  req["batch"] = w.batch;
  req["seq"] = seq;
  req["mode"] = mode;
  if (args.has("context")) req["context"] = context;
  req["predictor"] = predictor_name(predictor);
  req["engine"] = engine_name(engine);
  if (args.has("precision")) req["precision"] = dtype_name(w.dtype);
  if (args.has("price-per-gpu-hour"))
    req["price_per_gpu_hour"] = args.real("price-per-gpu-hour", "a price per GPU hour");
  if (!finetune.is_null()) req["finetune"] = finetune;
  // the API validates the word and where it applies
  if (args.has("master-weights")) req["master_weights"] = args.get("master-weights");
  return print_answer(args.has("json"), api::forecast_model(req.dump()), print_one_gpu);
}

[[maybe_unused]] const bool forecast_registered = register_command(
    {"forecast",
     "--gpu NAME_OR_PATH --model NAME_OR_PATH --seq S [--batch B] [--mode " +
         enum_names_joined(mode_names(), "|") +
         "] [--context N (decode: cached tokens, default S)] [--predictor " +
         enum_names_joined(predictor_names(), "|") + "] [--precision " +
         enum_names_of(dtype_names(), kModelPrecisions, "|") +
         " (training: autocast)] [--master-weights " +
         enum_names_joined(master_weights_names(), "|") +
         " (half-precision training on one GPU: fp32 = autocast, half = model.to(half))] "
         "[--compile] [--json] [--weights DIR] [training on many GPUs: "
         "--gpus N --dp N --tp N --pp N --microbatches M --zero 0-3 --recompute " +
         enum_names_joined(recompute_names(), "|") + " --schedule " +
         enum_names_joined(schedule_names(), "|") +
         " --bucket-mb MB --system NAME_OR_PATH (--batch is the global batch)] "
         "[--engine " +
         enum_names_of(engine_names(), kModelEngines, "|") + "|" + std::string(kMegatronEngine) +
         "; megatron: --precision " + enum_names_of(dtype_names(), kMegatronPrecisions, "|") +
         " --attention " + enum_names_joined(attention_kernel_names(), "|") +
         " --virtual-stages V --sequence-parallel --cp N "
         "(context parallel) --ep N (expert parallel, MoE) --no-distributed-optimizer "
         "--no-overlap-grad-reduce --tokens N] [--price-per-gpu-hour P (cost per step / per "
         "million tokens)] [--finetune " +
         enum_names_of(finetune_method_names(), kFinetuneMethods, "|") +
         " --lora-rank R (default 16) --lora-targets " +
         enum_names_joined(lora_target_names(), "|") + " (training on one GPU: LoRA / QLoRA)]",
     "forecast a whole model's inference pass, training step, prompt prefill or decode step",
     {"gpu",          "model",
      "batch",        "seq",
      "mode",         "context",
      "predictor",    "precision",
      "weights",      "gpus",
      "dp",           "tp",
      "pp",           "microbatches",
      "zero",         "recompute",
      "schedule",     "bucket-mb",
      "system",       "engine",
      "attention",    "virtual-stages",
      "tokens",       "cp",
      "ep",           "price-per-gpu-hour",
      "finetune",     "lora-rank",
      "lora-targets", "master-weights"},
     {"json", "compile", "sequence-parallel", "no-distributed-optimizer", "no-overlap-grad-reduce"},
     run_forecast});

}  // namespace
}  // namespace tilecast::cli
