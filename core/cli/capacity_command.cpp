// `tilecast capacity`: the cheapest replicas x tensor parallelism (and GPU, when several are
// given) serving a request rate within a P99 TTFT and TPOT SLO (docs/serving-load.md,
// "Capacity"); progress on stderr, one line per simulation.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "answer_text.hpp"
#include "command.hpp"
#include "io.hpp"
#include "serve_load.hpp"
#include "tilecast/api.hpp"
#include "tilecast/capacity.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast::cli {
namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t c = s.find(',', pos);
    out.push_back(s.substr(pos, c == std::string::npos ? c : c - pos));
    if (c == std::string::npos) return out;
    pos = c + 1;
  }
}

// The plan's text view, printed from the API's answer.
void print_capacity(const nlohmann::ordered_json& p) {
  std::printf("%s at %g requests/s, P99 TTFT <= %g ms and TPOT <= %g ms (%d simulations)\n",
              p["model"]["name"].get<std::string>().c_str(), p["qps"].get<double>(),
              p["slo"]["ttft_ms"].get<double>(), p["slo"]["tpot_ms"].get<double>(),
              p["simulations"].get<int>());
  for (const auto& o : p["options"]) {
    // tensor parallel, or a mixture's experts over ep GPUs (attention data parallel)
    const std::string layout = o.contains("ep") ? "ep " + std::to_string(o["ep"].get<int>())
                                                : "tp " + std::to_string(o["tp"].get<int>());
    if (o["meets"].get<bool>()) {
      std::printf(
          "  %-16s %s x %3d replicas = %4d GPUs: P99 TTFT %8.1f ms, TPOT %6.2f ms, "
          "%.3g tokens/GPU-hour",
          o["gpu"].get<std::string>().c_str(), layout.c_str(), o["replicas"].get<int>(),
          o["gpus"].get<int>(), o["ttft_p99_ms"].get<double>(), o["tpot_p99_ms"].get<double>(),
          o["tokens_per_gpu_hour"].get<double>());
      if (o.contains("tokens_per_dollar"))
        std::printf(", $%.2f/hour, %.3g tokens/$", o["price_per_hour"].get<double>(),
                    o["tokens_per_dollar"].get<double>());
      std::printf("\n");
      if (o.contains("replicas_band")) {  // the best option's: [fast edge, slow edge or null]
        const auto& b = o["replicas_band"];
        const std::string slow =
            b[1].is_null() ? "none up to the GPUs allowed" : std::to_string(b[1].get<int>());
        std::printf(
            "  %-16s 80%% band: %d-%s replicas (every step at the band's fast and slow edge)\n", "",
            b[0].get<int>(), slow.c_str());
      }
    } else {
      std::printf("  %-16s %s: %s\n", o["gpu"].get<std::string>().c_str(), layout.c_str(),
                  o["why"].get<std::string>().c_str());
    }
  }
  for (const auto& c : p["caveats"]) std::printf("\nnote: %s\n", c.get<std::string>().c_str());
}

int run_capacity(const Args& args) {
  const std::string model_arg = args.require("model");
  const ModelConfig model = resolve_model(model_arg);
  nlohmann::json gpus = nlohmann::json::array();
  for (const std::string& g : split_commas(args.require("gpu"))) {
    const GpuSpec spec = resolve_gpu(g);
    gpus.push_back(request_with(spec, model_arg, model)["gpu"]);
  }
  nlohmann::json req =
      request_with(resolve_gpu(split_commas(args.get("gpu")).front()), model_arg, model);
  req["gpu"] = gpus;
  if (!args.has("qps")) throw Error("--qps is required (the service's requests per second)");
  if (!args.has("slo-ttft-ms") || !args.has("slo-tpot-ms"))
    throw Error("--slo-ttft-ms and --slo-tpot-ms are both required (P99 targets)");
  constexpr std::int64_t kMax = std::int64_t{1} << 31;
  if (args.has("prompt")) req["prompt"] = args.integer("prompt", 1, 1, kMax);
  if (args.has("output")) req["output"] = args.integer("output", 1, 1, kMax);
  if (args.has("precision")) req["precision"] = args.get("precision");
  // quantized serving, as `serve` takes it: the API checks the words
  if (args.has("kv-cache")) req["kv_cache"] = args.get("kv-cache");
  if (args.has("weights")) req["weights"] = args.get("weights");
  if (args.has("decode-attention")) req["decode_attention"] = args.get("decode-attention");
  if (args.has("predictor")) req["predictor"] = args.get("predictor");
  if (args.has("max-gpus")) req["max_gpus"] = args.integer("max-gpus", 64, 1, 1024);
  add_load_fields(args, req);
  if (args.has("price-per-gpu-hour")) {
    nlohmann::json prices = nlohmann::json::array();
    for (const std::string& p : split_commas(args.get("price-per-gpu-hour")))
      prices.push_back(parse_number("price-per-gpu-hour", p));
    req["price_per_gpu_hour"] = prices;
  }
  // the API's reading of the request, then the plan with progress on stderr
  const std::string json = api::plan_capacity_with_progress(
      req.dump(), [](const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); });
  return print_answer(args.has("json"), json, print_capacity);
}

[[maybe_unused]] const bool capacity_registered = register_command(
    {"capacity",
     "--model NAME_OR_PATH --gpu NAME[,NAME...] --qps R --slo-ttft-ms X --slo-tpot-ms Y "
     "--prompt P --output O [--requests N] [--trace FILE] [--price-per-gpu-hour $[,$...]] "
     "[--max-gpus 64] [--precision " +
         enum_names_of(dtype_names(), kServingPrecisions, "|") + "] [--kv-cache fp8] [--weights " +
         enum_names_joined(weight_format_names(), "|") + "] [--decode-attention " +
         enum_names_joined(decode_attention_names(), "|") +
         "] [--seed S] [--range-ratio R] [--max-batch-tokens T] [--max-seqs S] [--scheduler " +
         enum_names_joined(scheduler_names(), "|") + "] [--batch-limits " +
         enum_names_joined(batch_limits_names(), "|") + "] [--json]",
     "the cheapest replicas x tensor parallelism serving a request rate within a P99 SLO",
     // a stream at a rate (or a trace), never closed-loop clients: no --concurrency
     with_flags({"model", "gpu", "qps", "trace", "prompt", "output", "price-per-gpu-hour",
                 "max-gpus", "precision", "kv-cache", "weights", "decode-attention", "predictor"},
                load_simulation_flags()),
     {"json"},
     run_capacity});

}  // namespace
}  // namespace tilecast::cli
