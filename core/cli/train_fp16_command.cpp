// `tilecast train-fp16`: fits the FP16 kernel models to the vidur per-operator timings of one
// or more GPUs and writes their weights file.
#include <cstdio>
#include <filesystem>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/error.hpp"
#include "tilecast/train_fp16.hpp"
#include "vidur_files.hpp"

namespace tilecast::cli {
namespace {

namespace fs = std::filesystem;

// "GPU=DIR": a catalog GPU and its folder of <org>/<model>/mlp.csv. The CSVs are named
// "<folder name>/<relative path>", so the hash does not depend on where the data lies.
Fp16TrainInput input_of(const std::string& arg) {
  const std::size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    throw Error("train-fp16: '" + arg +
                "' is not GPU=DIR (e.g. a40=../shared/data/vidur/compute/a40)");
  Fp16TrainInput in;
  in.gpu = resolve_gpu(arg.substr(0, eq));
  std::string dir = arg.substr(eq + 1);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string folder = fs::path(dir).filename().string();
  for (const VidurFile& f : vidur_mlp_files(dir))
    in.csvs.push_back({folder + "/" + f.relative, read_text_file(f.path)});
  return in;
}

int run_train_fp16(const Args& args) {
  const std::string out = args.require("out");
  if (args.positional().empty()) throw Error("train-fp16: give GPU=DIR for each GPU's data");
  Fp16TrainConfig config;
  config.seed = std::uint64_t(args.integer("seed", 1, 0, std::int64_t{1} << 53));
  config.epochs = int(args.integer("epochs", 0, 0, 100000));
  std::vector<Fp16TrainInput> inputs;
  std::string command =
      "tilecast train-fp16 --out " + out + " --seed " + std::to_string(config.seed);
  if (config.epochs) command += " --epochs " + std::to_string(config.epochs);
  if (args.has("gemm-out")) command += " --gemm-out " + args.get("gemm-out");
  for (const std::string& a : args.positional()) {
    inputs.push_back(input_of(a));
    const std::string& first = inputs.back().csvs.front().name;
    command +=
        " " + a.substr(0, a.find('=')) + "=<vidur>/compute/" + first.substr(0, first.find('/'));
  }
  double last_shown_s = -10;
  const Fp16TrainResult res =
      train_fp16_models(inputs, config, command, [&](const TrainProgress& p) {
        const bool edge = p.epoch == 1 || p.epoch == p.epochs;
        if (!edge && p.elapsed_s - last_shown_s < 2.0) return;
        last_shown_s = p.elapsed_s;
        std::fprintf(stderr,
                     "train-fp16 %-11s epoch %4d/%-4d loss (SMAPE) %.4f  elapsed %5.0fs  left "
                     "~%5.0fs\n",
                     p.family.c_str(), p.epoch, p.epochs, p.loss, p.elapsed_s, p.left_s);
      });
  write_text_file(out, res.weights_json + "\n");
  if (args.has("gemm-out")) {
    write_text_file(args.get("gemm-out"), res.gemm_json + "\n");
    std::fprintf(stderr, "wrote %s (the analytic tensor-core GEMM model)\n",
                 args.get("gemm-out").c_str());
  }
  std::fprintf(stderr, "trained on %lld operator rows (%lld distinct GPU x kernel samples)\n",
               static_cast<long long>(res.rows), static_cast<long long>(res.samples));
  for (const auto& [name, l] : res.losses)
    std::fprintf(stderr, "  %-11s %7lld samples  SMAPE %.4f -> %.4f\n", name.c_str(),
                 static_cast<long long>(l.rows), l.first, l.last);
  std::fprintf(stderr, "wrote %s (%zu bytes)\n", out.c_str(), res.weights_json.size() + 1);
  return 0;
}

[[maybe_unused]] const bool train_fp16_registered = register_command(
    {"train-fp16",
     "--out FILE [--gemm-out FILE] GPU=DIR... [--seed N] [--epochs N]",
     "train the FP16/BF16 kernel models from vidur per-operator timings (DIR: compute/<gpu>)",
     {"out", "gemm-out", "seed", "epochs"},
     {},
     run_train_fp16});

}  // namespace
}  // namespace tilecast::cli
