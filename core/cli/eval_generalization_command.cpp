// `tilecast eval-generalization`: the generalization protocol (docs/generalization.md). Reads
// the inputs, runs the folds (tilecast/generalization.hpp), writes the JSON report, the error
// bands and the block in docs/accuracy.md. `scripts/eval_generalization.sh` names the inputs.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "command.hpp"
#include "io.hpp"
#include "label_files.hpp"
#include "tilecast/error.hpp"
#include "tilecast/generalization.hpp"

namespace tilecast::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBegin = "<!-- generalization:begin -->";
constexpr const char* kEnd = "<!-- generalization:end -->";

// The path relative to `base` when it lies inside it (names in the hash do not depend on where
// the data folder is), else as given.
std::string name_in(const std::string& path, const fs::path& base) {
  std::error_code ec;
  const fs::path rel = fs::relative(fs::weakly_canonical(path, ec), base, ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) return path;
  return rel.generic_string();
}

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values)
    for (std::size_t start = 0; start <= v.size();) {
      const std::size_t comma = std::min(v.find(',', start), v.size());
      if (comma > start) out.push_back(v.substr(start, comma - start));
      start = comma + 1;
    }
  return out;
}

std::string hex64(std::uint64_t h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

void replace_readme_block(const std::string& path, const std::string& block) {
  const std::string text = read_text_file(path);
  const std::size_t b = text.find(kBegin), e = text.find(kEnd);
  if (b == std::string::npos || e == std::string::npos || e < b)
    throw Error(path + ": no " + std::string(kBegin) + " ... " + kEnd + " block");
  const std::size_t from = b + std::string(kBegin).size();
  write_text_file(path, text.substr(0, from) + "\n" + block + text.substr(e));
}

int run_eval_generalization(const Args& args) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string data = args.require("data");
  if (args.positional().empty()) throw Error("eval-generalization: give the training CSV files");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(data), ec);

  GeneralizationInputs in;
  for (const std::string& p : list_files(data + "/devices", ".json")) {
    in.train_devices.push_back({name_in(p, base), read_text_file(p)});
    in.eval_devices.push_back(in.train_devices.back());
  }
  for (const std::string& p : args.positional())
    in.train_csvs.push_back({name_in(p, base), read_text_file(p)});
  for (const std::string& p : split_commas(args.all("kernels")))
    in.kernel_csvs.push_back({name_in(p, base), read_text_file(p)});
  std::vector<std::string> skipped, notes;
  auto add_labels = [&](const std::string& dir) {
    LabelFiles l = collect_labels(dir + "/devices", dir + "/models", dir + "/labels");
    in.labels.insert(in.labels.end(), l.inputs.begin(), l.inputs.end());
    skipped.insert(skipped.end(), l.skipped.begin(), l.skipped.end());
    notes.insert(notes.end(), l.notes.begin(), l.notes.end());
  };
  add_labels(data);
  for (const std::string& dir : split_commas(args.all("measured"))) {
    for (const std::string& p : list_files(dir + "/devices", ".json"))
      in.eval_devices.push_back({name_in(p, base), read_text_file(p)});
    add_labels(dir);
  }

  std::vector<GeneralizationFold> folds;
  const std::vector<std::string> wanted = split_commas(args.all("folds"));
  for (const GeneralizationFold& f : generalization_folds())
    for (const std::string& w : wanted.empty() ? std::vector<std::string>{f.name} : wanted)
      if (f.name.rfind(w, 0) == 0) folds.push_back(f);
  if (folds.empty()) throw Error("--folds: no fold name starts with the names given");

  TrainConfig config;
  config.seed = std::uint64_t(args.integer("seed", 1, 0, std::int64_t{1} << 53));
  config.epochs = int(args.integer("epochs", 0, 0, 100000));
  config.max_rows = args.integer("max-rows", 0, 0, std::int64_t{1} << 40);
  const std::string hash = hex64(generalization_hash(in, folds, config));
  if (args.has("hash-only")) {
    std::printf("%s\n", hash.c_str());
    return 0;
  }
  std::string command = "make eval-generalization";
  if (args.has("seed") || args.has("epochs") || args.has("max-rows") || args.has("folds")) {
    command = "scripts/eval_generalization.sh --seed " + std::to_string(config.seed);
    if (config.epochs) command += " --epochs " + std::to_string(config.epochs);
    if (config.max_rows) command += " --max-rows " + std::to_string(config.max_rows);
    if (args.has("folds")) command += " --folds '" + args.get("folds") + "'";
  }
  std::fprintf(stderr,
               "eval-generalization: %zu folds, %zu training CSVs, %zu kernel CSVs, %zu labels\n",
               folds.size(), in.train_csvs.size(), in.kernel_csvs.size(), in.labels.size());
  // --runs-in: the residuals of an earlier run of the same inputs (--runs-out), to re-aggregate
  // without retraining.
  std::vector<FoldRun> runs;
  if (args.has("runs-in")) {
    const std::string text = read_text_file(args.get("runs-in"));
    runs = fold_runs_from_json(text, args.get("runs-in"));
    if (fold_runs_hash(text) != hash)
      throw Error("--runs-in: " + args.get("runs-in") + " was run on other inputs");
  } else {
    runs = run_generalization(in, folds, config, [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    });
  }
  if (args.has("runs-out")) write_text_file(args.get("runs-out"), fold_runs_to_json(runs, hash));
  const std::string report = generalization_report_json(runs, config, hash, command);
  const std::string markdown = generalization_markdown(report);
  if (args.has("out")) write_text_file(args.get("out"), report + "\n");
  if (args.has("bands")) {
    ErrorBands bands = fit_error_bands(runs);
    bands.protocol_hash = hash;
    write_text_file(args.get("bands"), error_bands_to_json(bands, command) + "\n");
  }
  if (args.has("readme")) replace_readme_block(args.get("readme"), markdown);
  std::printf("%s", markdown.c_str());
  if (!skipped.empty())
    std::fprintf(stderr, "skipped %zu labels with options (not modelled)\n", skipped.size());
  for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  std::fprintf(stderr, "eval-generalization: %.0f s in all\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}

[[maybe_unused]] const bool eval_generalization_registered = register_command(
    {"eval-generalization",
     "--data DIR [--kernels CSV[,CSV...]]... [--measured RUN_DIR]... [--out FILE.json] "
     "[--bands FILE.json] [--readme FILE.md] [--folds NAME[,NAME...]] [--seed N] [--epochs N] "
     "[--max-rows N] [--hash-only] [--runs-out FILE | --runs-in FILE] TRAIN_CSV...",
     "the generalization protocol: train without each architecture, evaluate it; error bands",
     {"data", "kernels", "measured", "out", "bands", "readme", "folds", "seed", "epochs",
      "max-rows", "runs-out", "runs-in"},
     {"hash-only"},
     run_eval_generalization});

}  // namespace
}  // namespace tilecast::cli
