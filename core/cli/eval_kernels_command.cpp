// `tilecast eval-kernels`: MAPE of a predictor and of the roofline on measured kernel CSVs.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "command.hpp"
#include "io.hpp"
#include "model_flag.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/kernel_eval.hpp"
#include "tilecast/learned_models.hpp"
#include "weights_flag.hpp"

namespace tilecast::cli {
namespace {

// --model ID [--model ID2...] [--model-dir DIR] (model_flag.hpp): each model forecasts every row
// it serves, a later one ahead of an earlier (e.g. amd-fp32 then amd-fp32-gemm for the GEMMs);
// the rows none serves are left out.
void keep_rows_of_models(const Args& args, const std::map<std::string, GpuSpec>& devices,
                         std::vector<MeasuredKernel>& rows) {
  const std::vector<std::string> ids = apply_model_flag(args, devices);
  if (ids.empty()) return;
  const std::size_t before = rows.size();
  std::erase_if(rows, [&](const MeasuredKernel& r) {
    const auto d = devices.find(r.device);
    return d == devices.end() || std::none_of(ids.begin(), ids.end(), [&](const std::string& id) {
             return model_serves(id, d->second.vendor, r.kernel);
           });
  });
  std::fprintf(stderr, "eval-kernels --model: %zu of %zu rows are its kernels\n", rows.size(),
               before);
  if (rows.empty()) throw Error("eval-kernels: the models given serve none of the rows given");
}

int run_eval_kernels(const Args& args) {
  apply_weights_flag(args);
  const std::string devices_dir = args.require("devices");
  if (args.positional().empty()) throw Error("eval-kernels: give the kernel CSV files");
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  const std::map<std::string, GpuSpec> devices = read_device_dir(devices_dir);
  std::vector<MeasuredKernel> rows = read_kernel_files(args.positional());
  keep_rows_of_models(args, devices, rows);
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

[[maybe_unused]] const bool eval_kernels_registered =
    register_command({"eval-kernels",
                      "--devices DIR [--predictor " + enum_names_joined(predictor_names(), "|") +
                          "] [--json | --rows] [--weights DIR] [--model ID]... [--model-dir DIR] "
                          "[--min-measured-us N] CSV...",
                      "MAPE per (GPU, op) on measured kernel CSVs, beside the roofline's",
                      {"devices", "predictor", "weights", "min-measured-us", "model", "model-dir"},
                      {"json", "rows"},
                      run_eval_kernels});

}  // namespace
}  // namespace tilecast::cli
