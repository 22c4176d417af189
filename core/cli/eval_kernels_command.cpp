// `tilecast eval-kernels`: MAPE of a predictor and of the roofline on measured kernel CSVs.
#include <cstdio>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/kernel_eval.hpp"
#include "weights_flag.hpp"

namespace tilecast::cli {
namespace {

int run_eval_kernels(const Args& args) {
  apply_weights_flag(args);
  const std::string devices_dir = args.require("devices");
  if (args.positional().empty()) throw Error("eval-kernels: give the kernel CSV files");
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  const std::map<std::string, GpuSpec> devices = read_device_dir(devices_dir);
  std::vector<MeasuredKernel> rows = read_kernel_files(args.positional());
  // Only rows measured at or above a latency: separates kernels near a harness's launch floor
  // (which differs between measuring hosts) from the rest.
  if (args.has("min-measured-us")) {
    const double min_ms = double(args.integer("min-measured-us", 0, 0, 1000000000)) / 1000.0;
    std::erase_if(rows, [&](const MeasuredKernel& r) { return r.latency_ms < min_ms; });
    if (rows.empty())
      throw Error("eval-kernels: no row was measured at or above --min-measured-us " +
                  args.get("min-measured-us") + " (microseconds)");
  }
  const EvalReport rep = evaluate_kernels(rows, devices, predictor);
  if (args.has("rows"))
    std::printf("%s", eval_rows_csv(rows, devices, predictor).c_str());
  else if (args.has("json"))
    std::printf("%s\n", eval_report_to_json(rep).c_str());
  else
    std::printf("%s", eval_report_to_text(rep, predictor).c_str());
  return 0;
}

[[maybe_unused]] const bool registered =
    register_command({"eval-kernels",
                      "--devices DIR [--predictor " + enum_names_joined(predictor_names(), "|") +
                          "] [--json | --rows] [--weights DIR] "
                          "[--min-measured-us N] CSV...",
                      "MAPE per (GPU, op) on measured kernel CSVs, beside the roofline's",
                      {"devices", "predictor", "weights", "min-measured-us"},
                      {"json", "rows"},
                      run_eval_kernels});

}  // namespace
}  // namespace tilecast::cli
