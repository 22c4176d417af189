// `tilecast eval-published --file ../shared/data/published/korthikanti-2022.json`: the megatron
// engine against Korthikanti et al. 2022's runs, row by row, and the targets (docs/megatron.md).
#include <cstdio>
#include <string>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/published_eval.hpp"

namespace tilecast::cli {
namespace {

int run_eval_published(const Args& args) {
  const std::string file = args.require("file");
  const Predictor predictor = parse_predictor(args.get("predictor", "tilecast"));
  const PublishedReport rep = evaluate_published(read_text_file(file), file, predictor);
  if (args.has("json")) {
    std::printf("%s\n", published_report_to_json(rep).c_str());
    return 0;
  }
  std::printf("%s\n\n", rep.assumptions.c_str());
  std::printf("%-18s %5s %2s %3s %2s %2s %3s %-9s %-21s %-21s %-19s %-15s %s\n", "model", "gpus",
              "tp", "pp", "dp", "v", "SP", "recompute", "layer fwd ms (err)", "layer bwd ms (err)",
              "iteration s (err)", "MFU % (pts)", "memory GB");
  for (const auto& r : rep.rows) {
    char fwd[64] = "", bwd[64] = "", it[64] = "", mfu[64] = "";
    if (r.layer_forward_ms > 0) {
      std::snprintf(fwd, sizeof fwd, "%.2f/%.1f (%+.1f%%)", r.f_layer_forward_ms,
                    r.layer_forward_ms, 100 * (r.f_layer_forward_ms / r.layer_forward_ms - 1));
      std::snprintf(bwd, sizeof bwd, "%.2f/%.1f (%+.1f%%)", r.f_layer_backward_ms,
                    r.layer_backward_ms, 100 * (r.f_layer_backward_ms / r.layer_backward_ms - 1));
    }
    if (r.iteration_s > 0)
      std::snprintf(it, sizeof it, "%.2f/%.2f (%+.1f%%)", r.f_iteration_s, r.iteration_s,
                    100 * (r.f_iteration_s / r.iteration_s - 1));
    else
      std::snprintf(it, sizeof it, "%.2f/-", r.f_iteration_s);
    if (r.mfu_pct > 0)
      std::snprintf(mfu, sizeof mfu, "%.1f/%.1f (%+.1f)", r.f_mfu_pct, r.mfu_pct,
                    r.f_mfu_pct - r.mfu_pct);
    else
      std::snprintf(mfu, sizeof mfu, "%.1f/-", r.f_mfu_pct);
    std::printf("%-18.18s %5d %2d %3d %2d %2d %3s %-9.9s %-21s %-21s %-19s %-15s %.1f/%.0f %s\n",
                r.model.c_str(), r.gpus, r.tp, r.pp, r.dp, r.virtual_stages,
                r.sequence_parallel ? "on" : "off", r.recompute.c_str(), fwd, bwd, it, mfu,
                r.memory_gb, r.capacity_gb,
                r.fits              ? "fits"
                : r.layer_benchmark ? "does not fit (one-layer benchmark: not required)"
                                    : "DOES NOT FIT");
  }
  std::printf("\n(forecast/measured)\n");
  std::printf("Table 4 per-layer forward/backward: max |error| %.1f%% (target <= 10%%)\n",
              rep.table4_max_abs_error_pct);
  std::printf(
      "iteration times (%d rows): max |error| %.1f%% (target <= 10%%), MAE %.1f%% "
      "(target <= 6%%)\n",
      rep.table5_rows, rep.table5_max_abs_error_pct, rep.table5_mae_pct);
  std::printf("MFU (%d rows): max |error| %.1f points (target <= 3)\n", rep.mfu_rows,
              rep.mfu_max_abs_error_points);
  std::printf("every configuration that ran the whole model fits in memory: %s\n",
              rep.all_fit ? "yes" : "NO");
  return 0;
}

[[maybe_unused]] const bool eval_published_registered = register_command(
    {"eval-published",
     "--file PATH (e.g. ../shared/data/published/korthikanti-2022.json) [--predictor " +
         enum_names_joined(predictor_names(), "|") + "] [--json]",
     "the megatron engine against published large-model training runs (per-layer times, "
     "iteration times, MFU, memory)",
     {"file", "predictor"},
     {"json"},
     run_eval_published});

}  // namespace
}  // namespace tilecast::cli
