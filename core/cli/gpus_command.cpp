// `tilecast gpus`: the embedded GPU catalog.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/gpu_catalog.hpp"

namespace tilecast::cli {
namespace {

int run_gpus(const Args& args) {
  if (args.has("show")) {
    std::printf("%s\n", gpu_spec_to_json(resolve_gpu(args.get("show"))).c_str());
    return 0;
  }
  if (args.has("json")) {
    std::printf("%s\n", nlohmann::json::parse(api::list_gpus()).dump(2).c_str());
    return 0;
  }
  // memory: the datasheet's GB and what the driver reports (device_memory_bytes), 10^9 bytes;
  // the name column as wide as the longest name
  int name_width = 4;
  for (const auto& g : gpu_catalog()) name_width = std::max(name_width, int(g.name.size()));
  std::printf("%-18s %-*s %6s %9s %7s %10s %9s %7s\n", "id", name_width, "name", "SMs", "FP32 TF",
              "mem GB", "driver GB", "GB/s", "L2 MB");
  for (const auto& g : gpu_catalog())
    std::printf("%-18s %-*s %6d %9.1f %7.0f %10.1f %9.0f %7.1f\n", g.id.c_str(), name_width,
                g.name.c_str(), g.num_sm, g.fp32_gflops / 1000, g.mem_gb,
                device_memory_bytes(g) / 1e9, g.mem_bw_gbps, g.l2_mb);
  return 0;
}

[[maybe_unused]] const bool gpus_registered =
    register_command({"gpus",
                      "[--json] [--show NAME_OR_PATH]",
                      "list the GPU catalog, or show one spec",
                      {"show"},
                      {"json"},
                      run_gpus});

}  // namespace
}  // namespace tilecast::cli
