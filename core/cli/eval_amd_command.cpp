// `tilecast eval-amd`: eval-kernels with the AMD FP32 models, embedded or given as files
// (--weights FILE --tile-table FILE [--gemm-model FILE], e.g. trained with one GPU held out by
// scripts/eval_amd_cross_gpu.sh). MAPE per (GPU, op) beside the roofline's.
#include <cstdio>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/error.hpp"
#include "tilecast/kernel_eval.hpp"
#include "tilecast/learned_models.hpp"

namespace tilecast::cli {
namespace {

int run_eval_amd(const Args& args) {
  const std::string devices_dir = args.require("devices");
  if (args.positional().empty()) throw Error("eval-amd: give the kernel CSV files");
  if (args.has("weights") != args.has("tile-table"))
    throw Error("eval-amd: give --weights and --tile-table together");

  if (args.has("gemm-model") && !args.has("weights"))
    throw Error("eval-amd: --gemm-model needs --weights and --tile-table (trained with it)");
  if (args.has("weights"))
    register_fp32_weights("AMD", read_text_file(args.get("weights")),
                          read_text_file(args.get("tile-table")), args.get("weights"));
  if (args.has("gemm-model"))  // after the weights: it serves the GEMMs
    register_amd_gemm_model(read_text_file(args.get("gemm-model")),
                            read_text_file(args.get("weights")),
                            read_text_file(args.get("tile-table")), args.get("gemm-model"));
  const std::map<std::string, GpuSpec> devices = read_device_dir(devices_dir);
  const std::vector<MeasuredKernel> rows = read_kernel_files(args.positional());
  const EvalReport rep = evaluate_kernels(rows, devices, Predictor::tilecast);
  if (args.has("rows"))
    std::printf("%s", eval_rows_csv(rows, devices, Predictor::tilecast).c_str());
  else if (args.has("json"))
    std::printf("%s\n", eval_report_to_json(rep).c_str());
  else
    std::printf("%s", eval_report_to_text(rep, Predictor::tilecast).c_str());
  return 0;
}

[[maybe_unused]] const bool eval_amd_registered = register_command(
    {"eval-amd",
     "--devices DIR [--weights FILE --tile-table FILE [--gemm-model FILE]] [--json | --rows] "
     "CSV...",
     "eval-kernels with the AMD models, embedded or from files (cross-GPU runs; "
     "--weights alone: its net serves GEMMs too)",
     {"devices", "weights", "tile-table", "gemm-model"},
     {"json", "rows"},
     run_eval_amd});

}  // namespace
}  // namespace tilecast::cli
