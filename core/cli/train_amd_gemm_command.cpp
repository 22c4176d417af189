// `tilecast train-amd-gemm`: fits the analytic AMD FP32 GEMM model (docs/amd-model.md) on the
// linear and bmm rows of kernel CSVs, with the tiles of a given AMD tile table.
#include <cstdio>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/amd_gemm_train.hpp"
#include "tilecast/error.hpp"

namespace tilecast::cli {
namespace {

int run_train_amd_gemm(const Args& args) {
  const std::string devices_dir = args.require("devices");
  const std::string table_path = args.require("tile-table");
  const std::string out = args.require("out");
  if (args.positional().empty()) throw Error("train-amd-gemm: give the kernel CSV files");
  const std::vector<std::string> held_out = args.all("hold-out");
  std::string command = "tilecast train-amd-gemm --devices <data>/devices --tile-table " +
                        table_path + " --out " + out;
  for (const std::string& h : held_out) command += " --hold-out '" + h + "'";
  command += " <" + std::to_string(args.positional().size()) + " CSVs>";
  const AmdGemmTrainResult res =
      train_amd_gemm_model(read_kernel_files(args.positional()), read_device_dir(devices_dir),
                           read_text_file(table_path), held_out, command);
  write_text_file(out, res.json + "\n");
  std::fprintf(stderr,
               "train-amd-gemm: linear %lld rows MAPE %.2f %%, bmm %lld rows MAPE %.2f %% "
               "(%lld held-out rows skipped); wrote %s\n",
               static_cast<long long>(res.samples[0]), res.train_mape_pct[0],
               static_cast<long long>(res.samples[1]), res.train_mape_pct[1],
               static_cast<long long>(res.rows_held_out), out.c_str());
  return 0;
}

[[maybe_unused]] const bool train_amd_gemm_registered =
    register_command({"train-amd-gemm",
                      "--devices DIR --tile-table FILE --out FILE CSV... [--hold-out DEVICE]...",
                      "fit the analytic AMD FP32 GEMM model on linear/bmm kernel rows",
                      {"devices", "tile-table", "out", "hold-out"},
                      {},
                      run_train_amd_gemm});

}  // namespace
}  // namespace tilecast::cli
