// `tilecast eval-ops`: MAPE per operator on the vidur compute layout (every model under a
// folder of one GPU), the roofline's beside it.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/kernel_eval.hpp"
#include "tilecast/vidur_ops.hpp"
#include "vidur_files.hpp"

namespace tilecast::cli {
namespace {

// vidur's timings are FP16 kernels; read as BF16 they check the BF16 models' inputs
constexpr DataType kVidurPrecisions[] = {DataType::fp16, DataType::bf16};

int run_eval_ops(const Args& args) {
  const GpuSpec gpu = resolve_gpu(args.require("gpu"));
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  const DataType dtype = parse_dtype(args.get("precision", "fp16"));
  if (std::find(std::begin(kVidurPrecisions), std::end(kVidurPrecisions), dtype) ==
      std::end(kVidurPrecisions))
    throw Error("--precision " + std::string(dtype_name(dtype)) +
                ": vidur's operator timings are half-precision kernels; allowed: " +
                enum_names_of(dtype_names(), kVidurPrecisions, ", "));
  std::vector<VidurOpRow> rows;
  for (const VidurFile& f : vidur_mlp_files(args.require("vidur"))) {
    std::vector<VidurOpRow> part = parse_vidur_mlp_csv(read_text_file(f.path), f.path, dtype);
    rows.insert(rows.end(), std::make_move_iterator(part.begin()),
                std::make_move_iterator(part.end()));
  }
  const std::string weights = args.has("weights") ? read_text_file(args.get("weights")) : "";
  const std::string gemm = args.has("gemm") ? read_text_file(args.get("gemm")) : "";
  const EvalReport rep = evaluate_vidur_ops(rows, gpu, predictor, weights, gemm);
  if (args.has("rows")) {
    std::printf("%s", vidur_rows_csv(rows, gpu, predictor, weights, gemm).c_str());
    return 0;
  }
  if (args.has("json")) {
    std::printf("%s\n", eval_report_to_json(rep).c_str());
    return 0;
  }
  std::printf("%-24s %-24s %7s %10s %10s\n", "gpu", "op", "n",
              std::string(predictor_name(predictor)).c_str(), "roofline");
  for (const EvalGroup& g : rep.groups)
    std::printf("%-24s %-24s %7lld %9.2f%% %9.2f%%\n", g.gpu.c_str(), g.op.c_str(),
                static_cast<long long>(g.n), g.mape_pct, g.roofline_mape_pct);
  std::printf("%-24s %-24s %7lld %9.2f%% %9.2f%%\n", "overall", "", static_cast<long long>(rep.n),
              rep.overall_mape_pct, rep.overall_roofline_mape_pct);
  return 0;
}

[[maybe_unused]] const bool eval_ops_registered = register_command(
    {"eval-ops",
     "--gpu ID --vidur DIR [--predictor " + enum_names_joined(predictor_names(), "|") +
         "] [--weights FILE] [--gemm FILE] "
         "[--precision " +
         enum_names_of(dtype_names(), kVidurPrecisions, "|") +
         "] "
         "[--json | --rows]",
     "MAPE per operator on vidur's FP16 per-operator timings (DIR: compute/<gpu>), beside the "
     "roofline's",
     {"gpu", "vidur", "predictor", "weights", "gemm", "precision"},
     {"json", "rows"},
     run_eval_ops});

}  // namespace
}  // namespace tilecast::cli
