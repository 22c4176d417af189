// `train_fp16_models`: vidur rows -> one sample per distinct (GPU, kernel), the median of its
// repeats -> the per-family fit of family_fit.hpp -> a kernel weights file. Each operator of
// the layout runs one kernel (vidur_ops.hpp), so a row's median is that kernel's latency.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "common/median.hpp"
#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "learned/features.hpp"
#include "learned/tile_table.hpp"
#include "learned/weights.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"
#include "tilecast/train_fp16.hpp"
#include "tilecast/vidur_ops.hpp"
#include "train/family_fit.hpp"
#include "train/fnv.hpp"
#include "train/progress.hpp"
#include "train/tensor_gemm_fit.hpp"
#include "train/weights_json.hpp"

namespace tilecast {
namespace {

using train::FamilyData;
using train::Sample;

OpFamily family_id(std::string_view name) {
  for (int f = 0; f < family_count(); ++f)
    if (family_traits(OpFamily(f)).name == name) return OpFamily(f);
  throw Error("no op family '" + std::string(name) + "'");
}

// The families the FP16 data trains, in id order (their seeds follow it): the tensor-core
// GEMM, the 2-byte element-wise ops (residual add, GELU), layer norm (phi-2) and the
// half-precision families (token rows).
std::vector<OpFamily> fp16_families() {
  std::vector<OpFamily> out = {OpFamily::gemm, OpFamily::elementwise, OpFamily::layernorm};
  for (const FamilyTraits& t : half_precision_families()) out.push_back(family_id(t.name));
  return out;
}

// Small nets (a few hundred distinct shapes per op and GPU) and every row weighing alike: the
// targets are plain MAPE per operator, most of whose rows are short decode-sized kernels.
train::FitSettings fit_settings(OpFamily f, const Fp16TrainConfig& c) {
  train::FitSettings s;
  for (const Feature& feature : family_traits(f).features)
    s.steady_inputs.push_back(feature.steady);
  s.steady_hidden = {16, 16};
  s.tail_hidden = {16, 16};
  s.epochs = f == OpFamily::gemm ? 60 : 150;
  s.weight_ref_ms = 0;
  if (c.epochs > 0) s.epochs = c.epochs;
  return s;
}

// The training inputs (each GPU's spec, its CSVs' names and texts) and the settings' text.
std::uint64_t inputs_hash(const std::vector<Fp16TrainInput>& inputs, const std::string& settings) {
  std::uint64_t h = train::kFnvOffset;
  for (const Fp16TrainInput& in : inputs) {
    train::fnv1a_mix(h, train::hashed_gpu_spec(in.gpu));
    for (const TrainText& t : in.csvs) {
      train::fnv1a_mix(h, t.name);
      train::fnv1a_mix(h, t.text);
    }
  }
  train::fnv1a_mix(h, settings);
  return h;
}

}  // namespace

std::string fp16_train_config_text(const Fp16TrainConfig& c) {
  std::string s = "fp16 seed=" + std::to_string(c.seed) + " epochs=" + std::to_string(c.epochs);
  for (OpFamily f : fp16_families()) {
    const train::FitSettings st = fit_settings(f, c);
    s += " " + std::string(family_name(f)) + ":" + train::fit_settings_text(st);
  }
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.9g", kScalarLoadBytesPerThreadPerS);
  char share[64];
  std::snprintf(share, sizeof share, "%.9g", kScalarLoadMinStreamShare);
  s += std::string(" samples=median_per_gpu_kernel gemm_tile=tensor_core_rule scalar_load_rate=") +
       rate + " scalar_load_min_share=" + share +
       " gather_int_ops=" + std::to_string(int(kGatherIntOpsPerElement)) +
       " int32_lanes=" + std::to_string(int(kInt32LanesPerSm));
  return s;
}

std::uint64_t fp16_training_hash(const std::vector<Fp16TrainInput>& inputs,
                                 const Fp16TrainConfig& config) {
  return inputs_hash(inputs, fp16_train_config_text(config));
}

std::string tensor_gemm_config_text() {
  return "tensor_gemm form=" + std::string(kTensorGemmForm) +
         " fit=irls_relative_l1 iterations=" + std::to_string(train::kTensorGemmIterations) +
         " samples=median_per_gpu_kernel gemm_tile=tensor_core_rule";
}

std::uint64_t tensor_gemm_training_hash(const std::vector<Fp16TrainInput>& inputs) {
  return inputs_hash(inputs, tensor_gemm_config_text());
}

Fp16TrainResult train_fp16_models(const std::vector<Fp16TrainInput>& inputs,
                                  const Fp16TrainConfig& config, const std::string& command,
                                  const std::function<void(const TrainProgress&)>& progress) {
  train::ProgressClock clock;
  Fp16TrainResult res;
  // Repeats of a kernel on a GPU (rows sharing (tokens, TP), and models sharing a shape)
  // become one sample at the median of their medians.
  std::map<std::pair<std::size_t, Kernel>, std::vector<double>> measured;
  for (std::size_t g = 0; g < inputs.size(); ++g)
    for (const TrainText& c : inputs[g].csvs)
      for (const VidurOpRow& r : parse_vidur_mlp_csv(c.text, c.name)) {
        measured[{g, r.kernel}].push_back(r.measured_ms);
        ++res.rows;
      }
  const std::vector<OpFamily> families = fp16_families();
  std::map<OpFamily, FamilyData> data;
  for (OpFamily f : families) data[f].features = int(feature_names(f).size());
  static const TileTable no_table;  // tensor-core GEMMs choose their tile by rule
  for (const auto& [key, ms] : measured) {
    const GpuSpec& gpu = inputs[key.first].gpu;
    const Kernel& k = key.second;
    const LibraryProfile& library = library_profile_for(gpu);
    const TilePlan plan = plan_kernel(gpu, k, no_table, library);
    Sample s;
    s.x = kernel_features(gpu, k, plan, library).v;
    s.waves = double(plan.waves);
    s.tile_ms = tile_roofline_ms(gpu, k, plan, library);
    s.roofline_ms = roofline_latency_ms(gpu, k);
    s.latency_ms = detail::median(ms);
    s.gpu = &gpu;
    s.kernel = k;
    const auto it = data.find(op_family(k.op));
    if (it == data.end())
      throw Error("op '" + std::string(op_name(k.op)) + "' has no FP16 family to train");
    it->second.samples.push_back(s);
    ++res.samples;
  }

  for (OpFamily f : families)
    clock.total_work += double(data[f].samples.size()) * fit_settings(f, config).epochs;

  nlohmann::ordered_json j;
  j["format"] = "tilecast-kernel-weights-1";
  j["command"] = command;
  j["seed"] = config.seed;
  j["epochs"] = config.epochs;
  res.hash = fp16_training_hash(inputs, config);
  j["hash"] = "fnv1a64:" + train::hex64(res.hash);
  j["config"] = fp16_train_config_text(config);
  j["inputs"] = nlohmann::ordered_json::array();
  for (const Fp16TrainInput& in : inputs)
    for (const TrainText& c : in.csvs) j["inputs"].push_back(in.gpu.name + ": " + c.name);
  j["rows_used"] = res.rows;
  j["samples"] = res.samples;
  std::set<std::string> trained_on;
  for (const Fp16TrainInput& in : inputs) trained_on.insert(in.gpu.name);
  j["trained_on"] = trained_on;
  j["families"] = nlohmann::ordered_json::object();
  for (OpFamily f : families) {
    FamilyData& d = data[f];
    if (d.samples.empty()) continue;
    const std::string name(family_name(f));
    train::FitSettings st = fit_settings(f, config);
    st.overhead_max_ms = train::overhead_cap_ms(d);
    const double unit = double(d.samples.size());
    const train::FitResult fit =
        train::fit_family(d, st, config.seed * 1000003ull + std::uint64_t(f),
                          clock.epochs_of(name, st.epochs, unit, progress));
    res.losses[name] = {fit.first_loss, fit.last_loss, std::int64_t(d.samples.size())};
    nlohmann::ordered_json fam = train::family_entry(d, fit, feature_names(f), st.overhead_max_ms);
    train::add_nets(fam, fit);
    j["families"][name] = fam;
  }
  res.weights_json = j.dump();

  // The analytic GEMM model on the same GEMM samples (docs/fp16-model.md: it replaces the
  // GEMM net in the registry because it carries across GPUs).
  const train::TensorGemmFit gemm = train::fit_tensor_gemm(data[OpFamily::gemm].samples);
  nlohmann::ordered_json g;
  g["format"] = "tilecast-tensor-gemm-1";
  g["command"] = command;
  g["hash"] = "fnv1a64:" + train::hex64(tensor_gemm_training_hash(inputs));
  g["config"] = tensor_gemm_config_text();
  g["inputs"] = j["inputs"];
  g["samples"] = data[OpFamily::gemm].samples.size();
  g["trained_on"] = trained_on;
  g["form"] = kTensorGemmForm;
  g["compute_scale"] = train::round7(gemm.model.compute_scale);
  g["bandwidth_scale"] = train::round7(gemm.model.bandwidth_scale);
  g["overhead_ms"] = train::round7(gemm.model.overhead_ms);
  g["train_mape_pct"] = train::round7(gemm.train_mape_pct);
  res.gemm_json = g.dump(2);
  return res;
}

}  // namespace tilecast
