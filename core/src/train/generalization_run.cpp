// The generalization protocol's folds: train without an architecture, evaluate it
// (tilecast/generalization.hpp). Aggregation and reports are in eval/generalization.cpp.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "common/embedded_data.hpp"
#include "forecast/model_registry.hpp"
#include "learned/weights.hpp"
#include "tilecast/error.hpp"
#include "tilecast/generalization.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_csv.hpp"
#include "tilecast/learned_weights.hpp"
#include "train/fnv.hpp"

namespace tilecast {
namespace {

TrainConfig fold_config(const TrainConfig& base, const GeneralizationFold& fold) {
  TrainConfig c = base;
  for (const std::string& gpu : fold.gpus)
    if (std::find(c.held_out_devices.begin(), c.held_out_devices.end(), gpu) ==
        c.held_out_devices.end())
      c.held_out_devices.push_back(gpu);
  return c;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string format(const char* fmt, double a, double b = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

}  // namespace

const std::vector<GeneralizationFold>& generalization_folds() {
  static const std::vector<GeneralizationFold> folds = {
      {"Pascal", {"Tesla P4", "Tesla P100-PCIE-16GB"}, true, true},
      {"Volta", {"Tesla V100-PCIE-32GB"}, true, true},
      {"Turing", {"Tesla T4"}, true, true},
      {"Ampere", {"NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe"}, true, true},
      {"Hopper (H200, measured by us)", {"NVIDIA H200"}, false, false},
      {"CDNA (AMD)", {"AMD Instinct MI100", "AMD Instinct MI210"}, false, false},
  };
  return folds;
}

std::uint64_t generalization_hash(const GeneralizationInputs& in,
                                  const std::vector<GeneralizationFold>& folds,
                                  const TrainConfig& config) {
  std::uint64_t h = 14695981039346656037ull;
  train::fnv1a_mix(h, kGeneralizationProtocol);
  for (const GeneralizationFold& f : folds) {
    train::fnv1a_mix(h, f.name);
    for (const std::string& g : f.gpus) train::fnv1a_mix(h, g);
    train::fnv1a_mix(h, f.retrain ? "retrain" : "full model");
    train::fnv1a_mix(h, f.fits_bands ? "fits bands" : "-");
    if (f.retrain)
      train::fnv1a_mix(h, std::to_string(training_hash(in.train_csvs, in.train_devices,
                                                       fold_config(config, f))));
  }
  for (const auto* list : {&in.kernel_csvs, &in.eval_devices})
    for (const TrainText& t : *list) {
      train::fnv1a_mix(h, t.name);
      train::fnv1a_mix(h, t.text);
    }
  for (const E2eInput& l : in.labels) {
    train::fnv1a_mix(h, l.label_stem);
    train::fnv1a_mix(h, l.gpu_json);
    train::fnv1a_mix(h, l.model_json);
    train::fnv1a_mix(h, l.label_json);
  }
  // The full models the protocol evaluates with: NVIDIA FP32 and (for the CDNA rows) AMD FP32.
  for (const char* id : {"nvidia-fp32", "amd-fp32"})
    for (const char* role : {"weights", "tile_table"})
      train::fnv1a_mix(h, embedded_model_text(id, role));
  // The library profiles: launch rules and the GEMM kernel generation that picks an unmeasured
  // GPU's tiles decide the folds' forecasts too.
  for (const auto& f : embedded::json_files_in("core/data/libraries")) {
    train::fnv1a_mix(h, f.path);
    train::fnv1a_mix(h, f.text);
  }
  // What a device file takes from its catalog entry (architecture, residency, issue slots,
  // the vendor-stated DRAM efficiency) moves forecasts as well: hash the parsed specs of the
  // evaluated devices (each fold's training hash above already covers the training devices').
  for (const TrainText& d : in.eval_devices)
    train::fnv1a_mix(h, train::hashed_gpu_spec(parse_gpu_spec(d.text, d.name)));
  return h;
}

std::vector<FoldRun> run_generalization(const GeneralizationInputs& in,
                                        const std::vector<GeneralizationFold>& folds,
                                        const TrainConfig& config,
                                        const std::function<void(const std::string&)>& progress) {
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, GpuSpec> devices;
  for (const TrainText& d : in.eval_devices) {
    GpuSpec g = parse_gpu_spec(d.text, d.name);
    devices.emplace(g.name, g);
  }
  std::vector<MeasuredKernel> rows;
  for (const TrainText& c : in.kernel_csvs) {
    std::vector<MeasuredKernel> part = parse_kernel_csv(c.text, c.name);
    rows.insert(rows.end(), std::make_move_iterator(part.begin()),
                std::make_move_iterator(part.end()));
  }
  std::vector<std::string> label_gpu;  // each label's Device name
  for (const E2eInput& l : in.labels)
    label_gpu.push_back(parse_gpu_spec(l.gpu_json, "device of " + l.label_stem).name);
  const std::vector<std::string> full_model = embedded_weights("nvidia-fp32").trained_on;

  std::vector<FoldRun> runs;
  for (const GeneralizationFold& fold : folds) {
    FoldRun run;
    run.fold = fold;
    const std::set<std::string> gpus(fold.gpus.begin(), fold.gpus.end());
    const auto fold_t0 = std::chrono::steady_clock::now();
    if (fold.retrain) {
      const TrainConfig c = fold_config(config, fold);
      std::string held;
      for (const std::string& g : fold.gpus) held += (held.empty() ? "" : ", ") + g;
      say("fold " + fold.name + ": training without " + held);
      double last_s = -1e9;
      const TrainResult res = train_kernel_models(
          in.train_csvs, in.train_devices, c,
          "tilecast eval-generalization (fold " + fold.name + ")", [&](const TrainProgress& p) {
            if (p.epoch != p.epochs && p.elapsed_s - last_s < 15) return;
            last_s = p.elapsed_s;
            say("fold " + fold.name + ": train " + p.family + " epoch " + std::to_string(p.epoch) +
                "/" + std::to_string(p.epochs) +
                format("  elapsed %.0f s, left ~%.0f s", p.elapsed_s, p.left_s));
          });
      run.rows_trained = res.rows_used;
      run.rows_held_out = res.rows_held_out;
      run.trained_on = parse_kernel_weights(res.weights_json, "fold " + fold.name).trained_on;
      use_learned_weights(res.weights_json, res.tile_table_json, "fold " + fold.name);
    } else {
      use_embedded_weights();
      run.trained_on = full_model;
    }
    for (const std::string& g : run.trained_on)
      if (gpus.count(g))
        throw Error("generalization fold " + fold.name + ": its model was trained on " + g);
    for (const MeasuredKernel& r : rows) {
      if (!gpus.count(r.device)) continue;
      const auto it = devices.find(r.device);
      if (it == devices.end())
        throw Error(r.origin + ": Device '" + r.device + "' has no device file");
      const KernelForecast f = forecast_kernel(it->second, r.kernel, Predictor::tilecast, r.launch);
      run.kernels.push_back({r.device, r.kernel.op, r.latency_ms, f.latency_ms, f.roofline_ms});
    }
    std::vector<E2eInput> labels;
    for (std::size_t i = 0; i < in.labels.size(); ++i)
      if (gpus.count(label_gpu[i])) labels.push_back(in.labels[i]);
    run.e2e = evaluate_e2e(labels, Predictor::tilecast).cases;
    say("fold " + fold.name + ": " + std::to_string(run.kernels.size()) + " kernels, " +
        std::to_string(run.e2e.size()) + " labels evaluated" +
        format(" (fold %.0f s, total %.0f s)", seconds_since(fold_t0), seconds_since(t0)));
    runs.push_back(std::move(run));
  }
  use_embedded_weights();
  return runs;
}

}  // namespace tilecast
