// `tilecast kernel`: the forecast of one kernel on one GPU.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "answer_text.hpp"
#include "command.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "weights_flag.hpp"

namespace tilecast::cli {
namespace {

// The text view, printed from the API's answer.
void print_kernel(const nlohmann::ordered_json& f) {
  std::printf("%s %s %s on %s (%s)\n", f["op"].get<std::string>().c_str(),
              f["dims"].get<std::string>().c_str(), f["precision"].get<std::string>().c_str(),
              f["gpu"].get<std::string>().c_str(), f["predictor"].get<std::string>().c_str());
  std::printf("  latency     %.6g ms\n", f["latency_ms"].get<double>());
  if (!f["band_high_ms"].is_null())
    std::printf("  80%% band    %.6g-%.6g ms (out-of-architecture residuals)\n",
                f["band_low_ms"].get<double>(), f["band_high_ms"].get<double>());
  std::printf("  roofline    %.6g ms (lower bound)\n", f["roofline_ms"].get<double>());
  std::printf("  tile        %s, %lld tiles in %lld waves, utilization %.3f\n",
              f["tile"].get<std::string>().c_str(), f["tiles"].get<long long>(),
              f["waves"].get<long long>(), f["utilization"].get<double>());
  std::printf("  work        %.6g GFLOP, %.6g MB\n", f["flops"].get<double>() / 1e9,
              f["bytes"].get<double>() / 1e6);
  for (const auto& c : f["caveats"]) std::printf("note: %s\n", c.get<std::string>().c_str());
}

int run_kernel(const Args& args) {
  apply_weights_flag(args);
  const GpuSpec gpu = resolve_gpu(args.require("gpu"));
  const DataType dtype = parse_dtype(args.get("precision", "fp32"));
  require_precision(gpu, dtype);  // names the catalog GPUs that have it
  const Kernel kernel = parse_kernel(args.require("op"), args.require("dims"), dtype);
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  nlohmann::json req;
  req["gpu"] = nlohmann::json::parse(gpu_spec_to_json(gpu));
  req["op"] = op_name(kernel.op);
  req["dims"] = nlohmann::json::array();
  for (std::size_t i = 0; i < op_dim_count(kernel.op); ++i) req["dims"].push_back(kernel.dims[i]);
  req["precision"] = dtype_name(kernel.dtype);
  req["predictor"] = predictor_name(predictor);
  return print_answer(args.has("json"), api::forecast_kernel(req.dump()), print_kernel);
}

[[maybe_unused]] const bool kernel_registered = register_command(
    {"kernel",
     "--gpu NAME_OR_PATH --op OP --dims B,M,N,K|B,H [--precision " +
         enum_names_joined(dtype_names(), "|") + "] [--predictor " +
         enum_names_joined(predictor_names(), "|") + "] [--json] [--weights DIR]",
     "forecast one kernel (FP32 unless --precision; learned for fp32, fp16 and bf16 (NVIDIA); "
     "other precisions: --predictor roofline)",
     {"gpu", "op", "dims", "precision", "predictor", "weights"},
     {"json"},
     run_kernel});

}  // namespace
}  // namespace tilecast::cli
