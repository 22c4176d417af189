// `tilecast eval-comm`: collective forecasts against Vidur's NCCL timings, median absolute
// error per (node, collective, GPU count). `tilecast calibrate-comm`: refits the efficiency
// curves on those timings and prints core/data/comm_calibration.json.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/comm_eval.hpp"
#include "tilecast/error.hpp"

namespace tilecast::cli {
namespace {

// Every <vidur>/network/<node>/*.csv (or <dir>/<node>/*.csv when given the network folder).
std::vector<CommRow> read_vidur_network(const std::string& vidur) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string root = vidur + "/network";
  if (!fs::is_directory(root, ec)) root = vidur;
  if (!fs::is_directory(root, ec)) throw Error("--vidur: '" + vidur + "' is not a directory");
  std::vector<std::string> nodes;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory()) nodes.push_back(e.path().filename().string());
  std::sort(nodes.begin(), nodes.end());
  std::vector<CommRow> rows;
  for (const auto& node : nodes)
    for (const auto& f : list_files(root + "/" + node, ".csv")) {
      auto part = parse_vidur_comm_csv(read_text_file(f), node, f);
      rows.insert(rows.end(), part.begin(), part.end());
    }
  if (rows.empty()) throw Error("--vidur: no network/<node>/*.csv under '" + vidur + "'");
  mark_held_out_sizes(rows);
  return rows;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream is(s);
  while (std::getline(is, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int run_eval_comm(const Args& args) {
  const auto rows = read_vidur_network(args.require("vidur"));
  const CommCalibration calibration =
      args.has("calibration")
          ? parse_comm_calibration(read_text_file(args.get("calibration")), args.get("calibration"))
          : default_comm_calibration();
  const CommReport report = evaluate_comm(rows, calibration);
  if (args.has("json")) {
    std::printf("%s\n", comm_report_to_json(report).c_str());
    return 0;
  }
  std::printf(
      "median absolute error of collective forecasts (held out: every other size, never "
      "fitted)\n");
  std::printf("%-21s %-10s %5s %5s %-13s %5s %7s %6s %8s %8s %5s %9s\n", "node", "collective",
              "gpus", "nodes", "link", "n", "all %", "n>=1M", ">=1MiB %", "held %", "n<=64K",
              "<=64KiB %");
  for (const auto& g : report.groups) {
    if (!g.modelled) {
      std::printf("%-21s %-10s %5d %5d %-13s %5d   not modelled: %s\n", g.node.c_str(),
                  g.collective.c_str(), g.gpus, g.nodes, "-", g.n, g.note.c_str());
      continue;
    }
    std::printf("%-21s %-10s %5d %5d %-13s %5d %7.1f %6d %8.1f %8.1f %6d %9.1f%s\n", g.node.c_str(),
                g.collective.c_str(), g.gpus, g.nodes, g.link.c_str(), g.n, g.median_abs_error_pct,
                g.n_ge_1mib, g.median_abs_error_pct_ge_1mib,
                g.median_abs_error_pct_ge_1mib_held_out, g.n_le_64kib,
                g.median_abs_error_pct_le_64kib, g.calibrated ? "" : "  (borrowed curve)");
  }
  return 0;
}

int run_calibrate_comm(const Args& args) {
  const auto rows = read_vidur_network(args.require("vidur"));
  CommFitOptions options;
  options.nodes = split_list(args.get("nodes", "a100_dgx,a100_pairwise_nvlink"));
  for (const auto& g : split_list(args.get("gpus", ""))) options.gpus.push_back(std::stoi(g));
  options.include_held_out = args.has("all-sizes");
  CommCalibration c = fit_comm_calibration(rows, options);
  std::string on = "Vidur network timings (../shared/data/vidur/network), nodes " +
                   args.get("nodes", "a100_dgx,a100_pairwise_nvlink");
  if (!options.gpus.empty()) on += ", GPU counts " + args.get("gpus");
  on += options.include_held_out ? ", every size" : ", even-ranked sizes only (odd ones held out)";
  c.fitted_on = on;
  std::string cmd = "tilecast calibrate-comm --vidur ../shared/data/vidur";
  if (args.has("nodes")) cmd += " --nodes " + args.get("nodes");
  if (args.has("gpus")) cmd += " --gpus " + args.get("gpus");
  if (args.has("all-sizes")) cmd += " --all-sizes";
  c.command = cmd + " --out core/data/comm_calibration.json";
  const std::string text = comm_calibration_to_json(c) + "\n";
  if (args.has("out"))
    write_text_file(args.get("out"), text);
  else
    std::printf("%s", text.c_str());
  return 0;
}

[[maybe_unused]] const bool registered_eval = register_command(
    {"eval-comm",
     "--vidur DIR [--calibration FILE] [--json]",
     "collective forecasts vs Vidur's NCCL timings: median abs error per node, collective, GPUs",
     {"vidur", "calibration"},
     {"json"},
     run_eval_comm});

[[maybe_unused]] const bool registered_calibrate =
    register_command({"calibrate-comm",
                      "--vidur DIR [--nodes a,b] [--gpus 2,8] [--all-sizes] [--out FILE]",
                      "refit the communication efficiency curves (core/data/comm_calibration.json)",
                      {"vidur", "nodes", "gpus", "out"},
                      {"all-sizes"},
                      run_calibrate_comm});

}  // namespace
}  // namespace tilecast::cli
