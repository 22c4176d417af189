// `tilecast forecast`: one model's training step, inference pass, prefill or decode step
// on one GPU.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

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

// The multi-GPU training step (docs/parallel.md), printed from the API's JSON.
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
  const std::string text = api::forecast_model(req.dump());
  if (args.has("json")) {
    std::printf("%s\n", text.c_str());
    return 0;
  }
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
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
  std::printf("\nbreakdown (critical stage)\n");
  const double step = j["step_ms"].get<double>();
  for (const auto& [k, v] : j["breakdown"].items())
    std::printf("  %-14s %10.3f ms  %5.1f%%\n", k.c_str(), v.get<double>(),
                100 * v.get<double>() / step);
  std::printf("\n  %-6s %12s %12s %12s %12s\n", "stage", "compute ms", "comm ms", "exposed ms",
              "bubble ms");
  for (const auto& s : j["stages"])
    std::printf("  %-6d %12.3f %12.3f %12.3f %12.3f\n", s["stage"].get<int>(),
                s["compute_busy_ms"].get<double>(), s["comm_busy_ms"].get<double>(),
                s["exposed_comm_ms"].get<double>(), s["bubble_ms"].get<double>());
  print_training_footer(j, "stage");
  return 0;
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
  if (engine_word == "megatron") {
    if (args.has("finetune"))
      throw Error("--finetune (LoRA / QLoRA) applies to --engine eager or compiled, one GPU");
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
    throw Error(std::string("--engine: ") + e.what() + ", megatron (training on many GPUs)");
  }
  if (engine == Engine::fused)
    throw Error(
        "--engine fused is the serving engine (tilecast serve); here: eager, compiled, "
        "megatron");
  if (args.has("precision")) {
    w.dtype = parse_dtype(args.get("precision", "fp32"));
    if (std::find(std::begin(kModelPrecisions), std::end(kModelPrecisions), w.dtype) ==
        std::end(kModelPrecisions))
      throw Error("--precision: allowed " + enum_names_of(dtype_names(), kModelPrecisions, ", "));
    require_precision(gpu, w.dtype);
  }

  // --finetune lora|qlora [--lora-rank R] [--lora-targets T]: the API's request field, which
  // validates it; the text path reads the method, rank and targets back from its answer
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

  // The one-GPU request as the API takes it: the --json answer, and in the text output the
  // fine-tuning counts, MFU and cost the API computes (one definition each).
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
  // the API validates the word and where it applies; the text path reads it back from its answer
  if (args.has("master-weights")) req["master_weights"] = args.get("master-weights");
  if (args.has("json")) {
    std::printf("%s\n", api::forecast_model(req.dump()).c_str());
    return 0;
  }
  nlohmann::ordered_json answer;  // the API's, when the text output needs its figures
  if (w.training() || args.has("price-per-gpu-hour") || !finetune.is_null() ||
      args.has("master-weights"))
    answer = nlohmann::ordered_json::parse(api::forecast_model(req.dump()));
  // (the answer names them for half-precision training steps only; FP32 otherwise)
  if (const auto& load = answer["workload"]; load.contains("master_weights"))
    w.master_weights = parse_master_weights(load["master_weights"].get<std::string>());
  nlohmann::ordered_json finetune_answer;  // the API's "finetune" object, when asked for
  if (!finetune.is_null()) {
    finetune_answer = answer["finetune"];
    w.finetune.method =
        parse_enum(finetune_method_names(), finetune_answer["method"].get<std::string>(), "");
    w.finetune.rank = finetune_answer["rank"].get<std::int64_t>();
    w.finetune.targets =
        parse_enum(lora_target_names(), finetune_answer["targets"].get<std::string>(), "");
  }

  const OpGraph graph = build_gpu_graph(gpu, model, w, engine);
  const ModelForecast f = forecast_graph(gpu, graph, w, predictor);
  const double roof = forecast_graph(gpu, graph, w, Predictor::roofline).latency_ms;
  std::printf("%s on %s: %s, batch %lld, seq %lld", model.name.c_str(), gpu.name.c_str(),
              mode.c_str(), static_cast<long long>(w.batch), static_cast<long long>(seq));
  if (mode_value == Mode::decode)
    std::printf(", one token against %lld cached", static_cast<long long>(w.context_len - 1));
  std::printf(" (%s predictor, %s, %s)\n", std::string(predictor_name(predictor)).c_str(),
              std::string(dtype_name(w.dtype)).c_str(),
              engine == Engine::compiled ? "torch.compile" : "PyTorch eager");
  std::printf("  latency      %10.3f ms   (roofline bound %.3f ms)\n", f.latency_ms, roof);
  if (f.band_high_ms > 0)
    std::printf("  80%% band     %.3f-%.3f ms (out-of-architecture residuals)\n", f.band_low_ms,
                f.band_high_ms);
  std::printf("  forward      %10.3f ms\n", f.forward_ms);
  if (w.training())
    std::printf("  backward     %10.3f ms   (gradient accumulation %.3f ms)\n", f.backward_ms,
                f.accumulate_ms);
  std::printf("  throughput   %10.2f samples/s, %.0f tokens/s%s\n", f.samples_per_s, f.tokens_per_s,
              mode_value == Mode::decode    ? " generated"
              : mode_value == Mode::prefill ? " of prompt"
                                            : "");
  std::printf("  kernels      %10lld launches, %.4g TFLOP; isolated latencies sum to %.3f ms\n",
              static_cast<long long>(f.kernels), f.flops / 1e12, f.kernel_sum_ms);
  if (w.training() || args.has("price-per-gpu-hour")) {
    // MFU and cost as the API answers them (one definition: tilecast/mfu.hpp, api/cost.cpp)
    print_utilization(answer);
    print_cost(answer);
  }
  std::printf("\nbreakdown\n");
  for (int k = 0; k < kOpKindCount; ++k)
    std::printf("  %-14s %10.3f ms  %5.1f%%\n",
                std::string(op_kind_name(static_cast<OpKind>(k))).c_str(), f.breakdown_ms[k],
                100 * f.breakdown_ms[k] / f.latency_ms);
  std::printf("\n  %-26s %6s %12s %12s %12s\n", "layer", "count", "forward ms", "backward ms",
              "total ms");
  for (const auto& l : f.layers)
    std::printf("  %-26s %6lld %12.4f %12.4f %12.3f\n", l.name.c_str(),
                static_cast<long long>(l.count), l.forward_ms, l.backward_ms, l.total_ms);
  if (!f.substitutions.empty()) {
    std::printf("\nforecast by the closest measured kernel class:\n");
    for (const auto& s : f.substitutions)
      std::printf("  %-30s as %s\n", s.kernel.c_str(), s.forecast_as.c_str());
  }
  for (const std::string& c : forecast_caveats(gpu, predictor, w.dtype, &f.transfers_used))
    std::printf("\nnote: %s\n", c.c_str());
  for (const std::string& c : workload_caveats(model, w)) std::printf("\nnote: %s\n", c.c_str());
  if (engine == Engine::compiled)
    std::printf(
        "\nnote: torch.compile: runs of element-wise, norm, softmax and copy kernels fused into "
        "one kernel each, GEMMs left to the library (docs/fusion.md)\n");
  for (const std::string& c : precision_caveats(w, f.roofline_fallbacks))
    std::printf("\nnote: %s\n", c.c_str());
  if (w.training()) {
    const TrainingMemory m = training_memory(gpu, graph, w.dtype, w.master_weights);
    std::printf("\nmemory (one GPU, Adam): %.2f GB of %.2f GB, %s\n", m.total_gb, m.capacity_gb,
                m.fits ? "fits" : "does NOT fit");
    std::printf(
        "  weights %.2f, gradients %.2f, optimizer %.2f, activations %.2f, workspace %.2f, "
        "context %.2f GB\n",
        m.weights_gb, m.gradients_gb, m.optimizer_gb, m.activations_gb, m.workspace_gb,
        m.context_gb);
    for (const std::string& c : memory_caveats(m)) std::printf("\nnote: %s\n", c.c_str());
  }
  if (!finetune_answer.is_null()) {
    std::printf(
        "\n%s, rank %lld on %s: %lld adapted linears, %.4g trainable and %.4g frozen "
        "parameters\n",
        finetune_answer["method"].get<std::string>().c_str(),
        static_cast<long long>(finetune_answer["rank"].get<std::int64_t>()),
        finetune_answer["targets"].get<std::string>().c_str(),
        static_cast<long long>(finetune_answer["adapted_linears"].get<std::int64_t>()),
        finetune_answer["trainable_params"].get<double>(),
        finetune_answer["frozen_params"].get<double>());
    for (const auto& a : finetune_answer["assumptions"])
      std::printf("note: %s\n", a.get<std::string>().c_str());
  }
  return 0;
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
         "[--engine eager|compiled|megatron; megatron: --precision " +
         enum_names_of(dtype_names(), kMegatronPrecisions, "|") +
         " --attention flash|fused-softmax --virtual-stages V --sequence-parallel --cp N "
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
