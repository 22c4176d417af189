// `tilecast plan`: every dp x tp x pp x micro-batch x ZeRO x recomputation configuration for a
// global batch on a system, ranked by step time and by tokens/s per GPU (docs/parallel.md).
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "answer_text.hpp"
#include "command.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/megatron.hpp"
#include "weights_flag.hpp"

namespace tilecast::cli {
namespace {

void print(const char* title, const nlohmann::ordered_json& list) {
  std::printf("\n%s\n  %4s %3s %3s %3s %5s %4s %-9s %11s %12s %8s %11s\n", title, "gpus", "dp",
              "tp", "pp", "micro", "zero", "recompute", "step ms", "tok/s/GPU", "bubble",
              "memory GB");
  for (const auto& e : list)
    std::printf("  %4d %3d %3d %3d %5d %4d %-9s %11.2f %12.0f %7.1f%% %5.1f/%-5.0f\n",
                e["gpus"].get<int>(), e["dp"].get<int>(), e["tp"].get<int>(), e["pp"].get<int>(),
                e["microbatches"].get<int>(), e["zero"].get<int>(),
                e["recompute"].get<std::string>().c_str(), e["step_ms"].get<double>(),
                e["tokens_per_s_per_gpu"].get<double>(), 100 * e["bubble_fraction"].get<double>(),
                e["memory_gb"].get<double>(), e["capacity_gb"].get<double>());
}

// A plan in which no configuration both divides and fits ranks nothing: say why, not two
// empty tables. `divides` names what a configuration must divide for the engine.
bool print_none_ranked(const nlohmann::ordered_json& j, const char* divides) {
  if (j["fitting"].get<long long>() > 0) return false;
  std::printf(
      "\nnothing to rank: of %lld configurations %lld do not divide (%s) and %lld do not fit "
      "in memory; try other --gpus, --global-batch or --seq\n",
      j["considered"].get<long long>(), j["does_not_divide"].get<long long>(), divides,
      j["does_not_fit"].get<long long>());
  return true;
}

// The megatron engine's plan (docs/megatron.md, "Plan").
void print_megatron(const nlohmann::ordered_json& j) {
  std::printf(
      "%s on %d x %s (%s), global batch %lld, seq %lld, %s, megatron engine: %lld "
      "configurations, %lld do not divide, %lld do not fit, %lld fit\n",
      j["model"]["name"].get<std::string>().c_str(), j["gpus"].get<int>(),
      j["gpu"]["name"].get<std::string>().c_str(), j["system"].get<std::string>().c_str(),
      j["global_batch"].get<long long>(), j["seq"].get<long long>(),
      j["precision"].get<std::string>().c_str(), j["considered"].get<long long>(),
      j["does_not_divide"].get<long long>(), j["does_not_fit"].get<long long>(),
      j["fitting"].get<long long>());
  if (print_none_ranked(j,
                        "the heads, layers, experts, sequence and global batch over tp, pp, "
                        "cp, ep and dp"))
    return;
  std::printf("\nfastest step\n  %4s %3s %3s %3s %3s %2s %5s %4s %2s %-9s %11s %10s %6s %11s\n",
              "dp", "tp", "pp", "cp", "ep", "v", "micro", "mbs", "sp", "recompute", "step ms",
              "tok/s/GPU", "MFU", "memory GB");
  for (const auto& e : j["by_step"])
    std::printf("  %4d %3d %3d %3d %3d %2d %5d %4lld %2s %-9s %11.2f %10.0f %5.1f%% %5.1f/%-5.0f\n",
                e["dp"].get<int>(), e["tp"].get<int>(), e["pp"].get<int>(), e["cp"].get<int>(),
                e["ep"].get<int>(), e["virtual_stages"].get<int>(), e["microbatches"].get<int>(),
                e["microbatch_size"].get<long long>(),
                e["sequence_parallel"].get<bool>() ? "on" : "-",
                e["recompute"].get<std::string>().c_str(), e["step_ms"].get<double>(),
                e["tokens_per_s_per_gpu"].get<double>(), 100 * e["mfu"].get<double>(),
                e["memory_gb"].get<double>(), e["capacity_gb"].get<double>());
}

// The eager engine's plan.
void print_eager(const nlohmann::ordered_json& j) {
  std::printf(
      "%s on %s (%s), global batch %lld, seq %lld, %s: %d configurations, %d do not divide, "
      "%d do not fit, %d fit\n",
      j["model"]["name"].get<std::string>().c_str(), j["system"].get<std::string>().c_str(),
      j["gpu"]["name"].get<std::string>().c_str(), j["global_batch"].get<long long>(),
      j["seq"].get<long long>(), j["precision"].get<std::string>().c_str(),
      j["considered"].get<int>(), j["does_not_divide"].get<int>(), j["does_not_fit"].get<int>(),
      j["fitting"].get<int>());
  if (print_none_ranked(j,
                        "tp the attention heads, pp the layers, dp x micro-batches the global "
                        "batch"))
    return;
  print("fastest step", j["by_step"]);
  print("most tokens/s per GPU", j["by_tokens_per_gpu"]);
}

int run_plan(const Args& args) {
  apply_weights_flag(args);
  nlohmann::json req;
  if (!args.has("system") && !args.has("gpu"))
    throw Error(
        "--system or --gpu is required (without --system: the system the GPU's catalog "
        "entry builds, or one node wired as its catalog links say)");
  if (args.has("system")) {
    const std::string system = args.get("system");
    req["system"] = is_regular_file(system) ? nlohmann::json::parse(read_text_file(system))
                                            : nlohmann::json(system);
  }
  const std::string model_arg = args.require("model");
  req["model"] = is_model_sizes(model_arg) ? nlohmann::json{{"sizes", model_sizes_json(model_arg)}}
                 : is_regular_file(model_arg) ? nlohmann::json::parse(read_text_file(model_arg))
                                              : nlohmann::json(model_arg);
  if (args.has("gpu")) {
    const std::string g = args.get("gpu");
    req["gpu"] = is_regular_file(g) ? nlohmann::json::parse(read_text_file(g)) : nlohmann::json(g);
  }
  req["global_batch"] = args.integer("global-batch", 0, 1, std::int64_t{1} << 31);
  if (!args.has("global-batch")) throw Error("--global-batch is required (sequences per step)");
  if (args.has("seq")) req["seq"] = args.integer("seq", 0, 1, std::int64_t{1} << 31);
  if (args.has("gpus")) req["gpus"] = args.integer("gpus", 0, 1, 65536);
  if (args.has("max-microbatches"))
    req["max_microbatches"] = args.integer("max-microbatches", 64, 1, 4096);
  req["predictor"] = args.get("predictor", "tilecast");
  if (args.has("precision")) req["precision"] = args.get("precision");
  req["top"] = args.integer("top", 10, 1, 1000000);
  if (args.has("engine")) req["engine"] = args.get("engine");
  if (args.has("attention")) req["attention"] = args.get("attention");
  for (const char* f : {"max-microbatch-size", "max-virtual-stages", "max-cp"})
    if (args.has(f)) {
      std::string key = f;
      std::replace(key.begin(), key.end(), '-', '_');
      req[key] = args.integer(f, 1, 1, 1024);
    }
  const std::string text = api::plan_parallel(req.dump());
  return print_answer(args.has("json"), text,
                      args.get("engine", "") == kMegatronEngine ? print_megatron : print_eager);
}

[[maybe_unused]] const bool plan_registered = register_command(
    {"plan",
     "--model NAME_OR_PATH (--system NAME_OR_PATH | --gpu NAME_OR_PATH) --global-batch B "
     "[--seq N] [--gpus N] [--max-microbatches M] [--top K] [--predictor " +
         enum_names_joined(predictor_names(), "|") + "] [--precision " +
         enum_names_of(dtype_names(), kModelPrecisions, "|") +
         " (autocast)] "
         "[--json] [--weights DIR] [--engine megatron (needs --gpus; searches tp x cp x pp x "
         "dp x virtual stages x micro-batch size x recomputation x sequence parallelism, x ep "
         "for MoE) --attention " +
         enum_names_joined(attention_kernel_names(), "|") +
         " --max-microbatch-size N "
         "--max-virtual-stages N --max-cp N]",
     "rank every dp x tp x pp x micro-batch x ZeRO x recomputation training configuration",
     {"model", "system", "global-batch", "seq", "gpus", "gpu", "max-microbatches", "top",
      "predictor", "precision", "weights", "engine", "attention", "max-microbatch-size",
      "max-virtual-stages", "max-cp"},
     {"json"},
     run_plan});

}  // namespace
}  // namespace tilecast::cli
