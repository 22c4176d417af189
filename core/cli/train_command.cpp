// `tilecast train`: fits the kernel models from measured CSVs and writes core/data JSON.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "command.hpp"
#include "io.hpp"
#include "model_training.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/train.hpp"

namespace tilecast::cli {
namespace {

namespace fs = std::filesystem;

// The path relative to `base` when it lies inside it (so the recorded inputs and
// the hash do not depend on where the data folder is), else as given.
std::string data_name(const std::string& path, const fs::path& base) {
  std::error_code ec;
  const fs::path rel = fs::relative(fs::weakly_canonical(path, ec), base, ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) return path;
  return rel.generic_string();
}

int run_train(const Args& args) {
  if (args.has("model")) return run_model_training(args);
  // --devices is repeatable: the dataset's device files first (the data folder the recorded
  // names are relative to), then e.g. a measurement kit run's (data/measured/<gpu>/<run>/devices).
  const std::vector<std::string> device_dirs = args.all("devices");
  if (device_dirs.empty()) throw Error("train: --devices DIR is required");
  const std::string& devices_dir = device_dirs.front();
  const std::string out_dir = args.require("out");
  if (args.positional().empty()) throw Error("train: give the training CSV files");
  TrainConfig config;
  config.seed = std::uint64_t(args.integer("seed", 1, 0, std::int64_t{1} << 53));
  config.epochs = int(args.integer("epochs", 0, 0, 100000));
  config.max_rows = args.integer("max-rows", 0, 0, std::int64_t{1} << 40);
  // What softmax and layer norm learn against: the element-wise streaming time with its
  // launch cost (the default) or without it (TrainConfig::row_reference_without_launch).
  const std::string row_reference = args.get("row-reference", "with-launch");
  if (row_reference != "with-launch" && row_reference != "without-launch")
    throw Error("train: --row-reference is '" + row_reference +
                "'; allowed: with-launch, without-launch");
  config.row_reference_without_launch = row_reference == "without-launch";
  // --hold-out is repeatable and takes comma-separated names; the always held-out A100 80GB
  // stays first, so the default config text (and the committed weights' hash) is unchanged.
  std::vector<std::string> extra_held_out;
  for (const std::string& v : args.all("hold-out"))
    for (std::size_t start = 0; start <= v.size();) {
      const std::size_t comma = std::min(v.find(',', start), v.size());
      const std::string name = v.substr(start, comma - start);
      if (!name.empty() && std::find(config.held_out_devices.begin(), config.held_out_devices.end(),
                                     name) == config.held_out_devices.end()) {
        config.held_out_devices.push_back(name);
        extra_held_out.push_back(name);
      }
      start = comma + 1;
    }

  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(devices_dir), ec).parent_path();
  std::vector<TrainText> devices;
  std::map<std::string, std::size_t> by_name;  // Device name -> its first file in devices
  for (std::size_t k = 0; k < device_dirs.size(); ++k)
    for (const std::string& p : list_files(device_dirs[k], ".json")) {
      TrainText d{data_name(p, base), read_text_file(p)};
      const std::string name = parse_gpu_spec(d.text, p).name;
      // Within the first folder (the dataset's) the first file of a name serves, as always; a
      // later folder may repeat a file as is (one GPU's run folders) but not redescribe a GPU.
      if (const auto it = by_name.find(name); it != by_name.end() && k > 0) {
        if (devices[it->second].text == d.text) continue;
        throw Error(p + ": Device '" + name + "' is also described, differently, by " +
                    devices[it->second].name + "; give one of the two folders");
      }
      by_name.emplace(name, devices.size());
      devices.push_back(std::move(d));
    }
  std::vector<TrainText> csvs;
  for (const std::string& p : args.positional())
    csvs.push_back({data_name(p, base), read_text_file(p)});

  if (args.has("tile-table-only")) {  // the table is counted, not fitted: seconds
    const std::string table_path = (fs::path(out_dir) / "tile_table.json").string();
    const std::string table = build_tile_table(csvs, devices, config);
    write_text_file(table_path, table + "\n");
    std::fprintf(stderr, "wrote %s (%zu bytes)\n", table_path.c_str(), table.size() + 1);
    return 0;
  }

  std::string command = "tilecast train --devices <data>/devices --out " + out_dir + " --seed " +
                        std::to_string(config.seed);
  if (config.epochs) command += " --epochs " + std::to_string(config.epochs);
  if (config.max_rows) command += " --max-rows " + std::to_string(config.max_rows);
  for (std::size_t i = 1; i < device_dirs.size(); ++i) command += " --devices " + device_dirs[i];
  for (const std::string& name : extra_held_out) command += " --hold-out '" + name + "'";
  if (config.row_reference_without_launch) command += " --row-reference without-launch";
  command += " <" + std::to_string(csvs.size()) + " CSVs listed in inputs>";

  double last_shown_s = -10;
  const TrainResult res =
      train_kernel_models(csvs, devices, config, command, [&](const TrainProgress& p) {
        const bool edge = p.epoch == 1 || p.epoch == p.epochs;
        if (!edge && p.elapsed_s - last_shown_s < 2.0) return;
        last_shown_s = p.elapsed_s;
        std::fprintf(stderr,
                     "train %-11s epoch %4d/%-4d loss (SMAPE) %.4f  elapsed %5.0fs  left ~%5.0fs\n",
                     p.family.c_str(), p.epoch, p.epochs, p.loss, p.elapsed_s, p.left_s);
      });
  const std::string weights_path = (fs::path(out_dir) / "kernel_weights.json").string();
  const std::string table_path = (fs::path(out_dir) / "tile_table.json").string();
  write_text_file(weights_path, res.weights_json + "\n");
  write_text_file(table_path, res.tile_table_json + "\n");
  std::fprintf(stderr, "trained on %lld rows (%lld rows of held-out GPUs skipped)\n",
               static_cast<long long>(res.rows_used), static_cast<long long>(res.rows_held_out));
  for (const auto& [name, l] : res.losses)
    std::fprintf(stderr, "  %-11s %7lld rows  SMAPE %.4f -> %.4f\n", name.c_str(),
                 static_cast<long long>(l.rows), l.first, l.last);
  std::fprintf(stderr, "wrote %s (%zu bytes) and %s (%zu bytes)\n", weights_path.c_str(),
               res.weights_json.size() + 1, table_path.c_str(), res.tile_table_json.size() + 1);
  return 0;
}

[[maybe_unused]] const bool train_registered = register_command(
    {"train",
     "--model ID [--data DIR] [--out DIR] [--recipe] [flags of its trainer], or --devices DIR "
     "[--devices "
     "DIR]... --out DIR CSV... [--seed N] [--epochs N] [--max-rows N] "
     "[--hold-out DEVICE[,DEVICE...]]... [--row-reference with-launch|without-launch] "
     "[--tile-table-only]",
     "retrain built-in model ID by its manifest's recipe (core/data/models/README.md"
     "; data from ../shared/data or --data, into core/data/models/ID or --out; --recipe prints "
     "its command), or train the "
     "FP32 kernel nets from the CSVs given (NVIDIA A100 80GB PCIe is always held out)",
     {"devices", "out", "seed", "epochs", "max-rows", "hold-out", "row-reference", "model", "data"},
     {"tile-table-only", "recipe"},
     run_train});

}  // namespace
}  // namespace tilecast::cli
