// `tilecast kernel`: the forecast of one kernel on one GPU.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast::cli {
namespace {

int run_kernel(const Args& args) {
  const GpuSpec gpu = resolve_gpu(args.require("gpu"));
  const Kernel kernel = parse_kernel(args.require("op"), args.require("dims"));
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  const KernelForecast f = forecast_kernel(gpu, kernel, predictor);
  if (args.has("json")) {
    nlohmann::ordered_json j;
    j["gpu"] = gpu.name;
    j["op"] = op_name(kernel.op);
    j["dims"] = dims_to_string(kernel);
    j["predictor"] = predictor_name(predictor);
    j["latency_ms"] = f.latency_ms;
    j["roofline_ms"] = f.roofline_ms;
    j["flops"] = f.flops;
    j["bytes"] = f.bytes;
    j["tile"] = f.tile;
    j["tiles"] = f.tiles;
    j["waves"] = f.waves;
    j["utilization"] = f.utilization;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("%s %s on %s (%s)\n", std::string(op_name(kernel.op)).c_str(),
              dims_to_string(kernel).c_str(), gpu.name.c_str(),
              std::string(predictor_name(predictor)).c_str());
  std::printf("  latency     %.6g ms\n  roofline    %.6g ms (lower bound)\n", f.latency_ms,
              f.roofline_ms);
  std::printf("  tile        %s, %lld tiles in %lld waves, utilization %.3f\n", f.tile.c_str(),
              static_cast<long long>(f.tiles), static_cast<long long>(f.waves), f.utilization);
  std::printf("  work        %.6g GFLOP, %.6g MB\n", f.flops / 1e9, f.bytes / 1e6);
  return 0;
}

[[maybe_unused]] const bool registered = register_command({
    "kernel", "--gpu NAME_OR_PATH --op OP --dims B,M,N,K|B,H [--predictor tilecast|roofline] [--json]",
    "forecast one kernel", {"gpu", "op", "dims", "predictor"}, {"json"}, run_kernel});

}  // namespace
}  // namespace tilecast::cli
