// `tilecast forecast`: one model's training step, inference pass, prefill or decode step
// on one GPU.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "weights_flag.hpp"

namespace tilecast::cli {
namespace {

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
  const Engine engine = args.has("compile") ? Engine::compiled : Engine::eager;
  if (args.has("precision")) {
    w.dtype = parse_dtype(args.get("precision", "fp32"));
    if (w.dtype != DataType::fp32 && w.dtype != DataType::fp16 && w.dtype != DataType::bf16)
      throw Error("--precision: allowed fp32, fp16, bf16");
    require_precision(gpu, w.dtype);
  }

  if (args.has("json")) {
    nlohmann::json req = request_with(gpu, model_arg, model);
    req["batch"] = w.batch;
    req["seq"] = seq;
    req["mode"] = mode;
    if (args.has("context")) req["context"] = context;
    req["predictor"] = predictor_name(predictor);
    req["engine"] = engine_name(engine);
    if (args.has("precision")) req["precision"] = dtype_name(w.dtype);
    std::printf("%s\n", api::forecast_model(req.dump()).c_str());
    return 0;
  }

  const OpGraph graph = build_engine_graph(model, w, engine);
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
  for (const std::string& c : forecast_caveats(gpu, predictor))
    std::printf("\nnote: %s\n", c.c_str());
  for (const std::string& c : workload_caveats(model, w)) std::printf("\nnote: %s\n", c.c_str());
  if (engine == Engine::compiled)
    std::printf(
        "\nnote: torch.compile: runs of element-wise, norm, softmax and copy kernels fused into "
        "one kernel each, GEMMs left to the library (docs/fusion.md)\n");
  for (const std::string& c : precision_caveats(w, f.roofline_fallbacks))
    std::printf("\nnote: %s\n", c.c_str());
  return 0;
}

[[maybe_unused]] const bool registered = register_command(
    {"forecast",
     "--gpu NAME_OR_PATH --model NAME_OR_PATH --seq S [--batch B] "
     "[--mode inference|training|prefill|decode] [--context N (decode: cached tokens, default S)] "
     "[--predictor tilecast|roofline] [--precision fp32|bf16|fp16 (training: autocast)] "
     "[--compile] [--json] [--weights DIR]",
     "forecast a whole model's inference pass, training step, prompt prefill or decode step",
     {"gpu", "model", "batch", "seq", "mode", "context", "predictor", "precision", "weights"},
     {"json", "compile"},
     run_forecast});

}  // namespace
}  // namespace tilecast::cli
