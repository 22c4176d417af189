// `tilecast eval-gemms --file data/published/gemm-kernels.json`: published GEMM timings against
// the kernel forecasts, and the time multiple each transfer's rows give (docs/serving.md,
// "Blackwell NVFP4 GEMMs").
#include <cstdio>
#include <string>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/gemm_eval.hpp"

namespace tilecast::cli {
namespace {

int run_eval_gemms(const Args& args) {
  const std::string file = args.require("file");
  const GemmEvalReport rep = evaluate_published_gemms(read_text_file(file), file);
  if (args.has("json")) {
    std::printf("%s\n", gemm_eval_to_json(rep).c_str());
    return 0;
  }
  std::printf("%-24s %-6s %-5s %6s %6s %6s %12s %12s %8s\n", "row", "gpu", "type", "m", "n", "k",
              "measured us", "forecast us", "ratio");
  for (const GemmEvalRow& r : rep.rows)
    std::printf("%-24.24s %-6.6s %-5s %6lld %6lld %6lld %12.2f %12.2f %8.2f\n", r.id.c_str(),
                r.gpu.c_str(), r.precision.c_str(), r.m, r.n, r.k, r.measured_us, r.forecast_us,
                r.forecast_us / r.measured_us);
  std::printf("\n(ratio: forecast / measured; forecasts as an engine launches the kernel)\n");
  for (const GemmEvalGroup& g : rep.groups)
    std::printf(
        "%s %s, %d rows: measured / forecast at the median %.2f (the transfer's time multiple in "
        "use: %.2f%s); median |error| %.1f%% without the multiple, %.1f%% with it\n",
        g.vendor.c_str(), g.precision.c_str(), g.rows, g.time_multiple_measured,
        g.time_multiple_in_use, g.carried ? "" : ", none carried: the transfer's note says why",
        g.median_abs_error_pct_without, g.median_abs_error_pct_with);
  return 0;
}

[[maybe_unused]] const bool eval_gemms_registered = register_command(
    {"eval-gemms",
     "--file PATH (e.g. data/published/gemm-kernels.json) [--json]",
     "published GEMM timings against the kernel forecasts; the time multiple a transfer's rows "
     "give",
     {"file"},
     {"json"},
     run_eval_gemms});

}  // namespace
}  // namespace tilecast::cli
