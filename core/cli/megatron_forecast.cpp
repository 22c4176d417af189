// `tilecast forecast --engine megatron` (docs/megatron.md): flags into the API request, the
// answer printed (or passed through with --json).
#include "megatron_forecast.hpp"

#include <cstdio>
#include <string>

#include "answer_text.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

namespace tilecast::cli {
namespace {

// The Megatron step's text view, printed from the API's answer.
void print_megatron_step(const nlohmann::ordered_json& j) {
  const auto& p = j["parallel"];
  std::printf("%s on %lld x %s (%s): training (megatron engine), global batch %lld, seq %lld, %s\n",
              j["model"]["name"].get<std::string>().c_str(), p["gpus"].get<long long>(),
              j["gpu"]["name"].get<std::string>().c_str(), p["system"].get<std::string>().c_str(),
              j["batch"].get<long long>(), j["seq"].get<long long>(),
              j["precision"].get<std::string>().c_str());
  std::printf(
      "  dp %d x tp %d x pp %d x cp %d, ep %d (virtual %d), %d micro-batches of %lld, SP %s, "
      "recompute %s, attention %s\n",
      p["dp"].get<int>(), p["tp"].get<int>(), p["pp"].get<int>(), p["cp"].get<int>(),
      p["ep"].get<int>(), p["virtual_stages"].get<int>(), p["microbatches"].get<int>(),
      p["microbatch_size"].get<long long>(), p["sequence_parallel"].get<bool>() ? "on" : "off",
      p["recompute"].get<std::string>().c_str(), p["attention"].get<std::string>().c_str());
  std::printf("  step         %12.3f ms\n", j["step_ms"].get<double>());
  std::printf("  one layer    %12.3f ms forward, %.3f ms backward (one micro-batch)\n",
              j["layer_forward_ms"].get<double>(), j["layer_backward_ms"].get<double>());
  std::printf("  throughput   %12.0f tokens/s, %.0f per GPU\n", j["tokens_per_s"].get<double>(),
              j["tokens_per_s_per_gpu"].get<double>());
  std::printf("  model TFLOP/s per GPU %.1f, MFU %.1f%%, HFU %.1f%% (of %.0f TFLOP/s)\n",
              j["model_tflops_per_gpu"].get<double>(), 100 * j["mfu"].get<double>(),
              100 * j["hfu"].get<double>(), j["peak_tflops"].get<double>());
  if (j.contains("train_days"))
    std::printf("  time to train %.3g tokens: %.2f days\n", j["tokens"].get<double>(),
                j["train_days"].get<double>());
  print_cost(j);
  print_breakdown(j["breakdown_ms"], j["step_ms"].get<double>(), " (critical pipeline rank)");
  print_training_footer(j, "rank");
}

}  // namespace

int run_megatron(const Args& args, nlohmann::json req) {
  req["engine"] = kMegatronEngine;
  for (const char* f : {"gpus", "dp", "tp", "pp", "cp", "ep", "microbatches", "virtual-stages"})
    if (args.has(f)) {
      std::string key = f;
      if (key == "virtual-stages") key = "virtual_stages";
      req[key] = args.integer(f, 1, 1, 65536);
    }
  for (const char* f : {"recompute", "attention"})
    if (args.has(f)) req[f] = args.get(f);
  for (const char* f : {"zero", "schedule", "bucket-mb"})
    if (args.has(f))
      throw Error(std::string("--") + f +
                  " is for the eager engine; the megatron engine takes --virtual-stages, "
                  "--sequence-parallel, --no-distributed-optimizer, --no-overlap-grad-reduce");
  if (args.has("system")) {
    const std::string v = args.get("system");
    req["system"] =
        is_regular_file(v) ? nlohmann::json::parse(read_text_file(v)) : nlohmann::json(v);
  }
  if (args.has("price-per-gpu-hour"))
    req["price_per_gpu_hour"] = args.real("price-per-gpu-hour", "a price per GPU hour");
  if (args.has("tokens")) req["tokens"] = args.real("tokens", "tokens to train on, e.g. 3e11");
  if (args.has("sequence-parallel")) req["sequence_parallel"] = true;
  if (args.has("no-distributed-optimizer")) req["distributed_optimizer"] = false;
  if (args.has("no-overlap-grad-reduce")) req["overlap_grad_reduce"] = false;
  return print_answer(args.has("json"), api::forecast_model(req.dump()), print_megatron_step);
}

}  // namespace tilecast::cli
