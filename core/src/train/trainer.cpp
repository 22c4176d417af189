// `train_kernel_models`: parse, build per-family datasets, fit each MLP, write the JSON.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "learned/latency.hpp"
#include "learned/tile_table.hpp"
#include "learned/weights.hpp"
#include "tilecast/error.hpp"
#include "tilecast/train.hpp"
#include "train/dataset.hpp"
#include "train/family_fit.hpp"
#include "train/progress.hpp"
#include "train/rng.hpp"
#include "train/tile_table_builder.hpp"
#include "train/weights_json.hpp"

namespace tilecast {
namespace {

using train::hex64;

// The families `tilecast train` trains: the built-in ones, in id order (their seeds and the
// weights file's order follow it).
std::vector<OpFamily> trained_families() {
  std::vector<OpFamily> out;
  for (int f = 0; f < builtin_family_count(); ++f) out.push_back(static_cast<OpFamily>(f));
  return out;
}

// Features a long-running kernel's utilization depends on: the tile and the GPU,
// not the wave count or the kernel's total size (each feature's `steady` flag).
std::vector<bool> steady_inputs(OpFamily f) {
  std::vector<bool> use;
  for (const Feature& feature : family_traits(f).features) use.push_back(feature.steady);
  return use;
}

train::FitSettings family_settings(OpFamily f, const TrainConfig& c) {
  const FitDefaults& fit = family_traits(f).fit;
  train::FitSettings s;
  s.steady_inputs = steady_inputs(f);
  s.steady_hidden = fit.steady_hidden;
  s.tail_hidden = fit.tail_hidden;
  s.epochs = fit.epochs;
  s.weight_ref_ms = 0.1;
  if (c.epochs > 0) s.epochs = c.epochs;
  return s;
}

}  // namespace

std::string train_config_text(const TrainConfig& c) {
  std::string s = "seed=" + std::to_string(c.seed) + " epochs=" + std::to_string(c.epochs) +
                  " max_rows=" + std::to_string(c.max_rows) + " held_out=";
  for (const auto& d : c.held_out_devices) s += d + ";";
  for (OpFamily f : trained_families()) {
    const train::FitSettings st = family_settings(f, c);
    s += " " + std::string(family_name(f)) + ":" + train::fit_settings_text(st);
  }
  s += " features=v2 clamp=range gemm_traffic=kernel_per_wave nets=steady+tail gemm_tile=table"
       " softmax_tiles=streaming";
  if (c.row_reference_without_launch) s += " row_reference=without_launch";
  return s;
}

namespace {

struct LoadedRows {
  std::map<std::string, GpuSpec> devices;
  std::vector<MeasuredKernel> rows;
  std::int64_t held_out = 0;
};

LoadedRows load_rows(const std::vector<TrainText>& csvs, const std::vector<TrainText>& device_files,
                     const TrainConfig& config) {
  LoadedRows out;
  for (const TrainText& d : device_files) {
    GpuSpec g = parse_gpu_spec(d.text, d.name);
    out.devices.emplace(g.name, g);
  }
  const std::set<std::string> held_out(config.held_out_devices.begin(),
                                       config.held_out_devices.end());
  for (const TrainText& c : csvs) {
    std::vector<MeasuredKernel> part = parse_kernel_csv(c.text, c.name);
    for (MeasuredKernel& r : part) {
      if (held_out.count(r.device)) {
        ++out.held_out;
        continue;
      }
      if (!out.devices.count(r.device))
        throw Error(r.origin + ": Device '" + r.device + "' has no device file");
      out.rows.push_back(std::move(r));
    }
  }
  return out;
}

std::string tile_table_of(const std::vector<MeasuredKernel>& rows,
                          const std::map<std::string, GpuSpec>& devices) {
  std::vector<const MeasuredKernel*> gemm_rows;
  for (const MeasuredKernel& r : rows) {
    if (int(op_family(r.kernel.op)) >= builtin_family_count())
      throw Error(r.origin + ": op '" + std::string(op_name(r.kernel.op)) +
                  "' belongs to a family tilecast train does not train");
    if (op_family(r.kernel.op) == OpFamily::gemm) gemm_rows.push_back(&r);
  }
  return train::build_tile_table_json(gemm_rows, devices);
}

}  // namespace

std::string build_tile_table(const std::vector<TrainText>& csvs,
                             const std::vector<TrainText>& device_files,
                             const TrainConfig& config) {
  const LoadedRows loaded = load_rows(csvs, device_files, config);
  return tile_table_of(loaded.rows, loaded.devices);
}

TrainResult train_kernel_models(const std::vector<TrainText>& csvs,
                                const std::vector<TrainText>& device_files,
                                const TrainConfig& config, const std::string& command,
                                const std::function<void(const TrainProgress&)>& progress) {
  train::ProgressClock clock;
  LoadedRows loaded = load_rows(csvs, device_files, config);
  const std::map<std::string, GpuSpec>& devices = loaded.devices;
  std::vector<MeasuredKernel>& rows = loaded.rows;
  TrainResult res;
  res.rows_held_out = loaded.held_out;
  res.rows_used = std::int64_t(rows.size());

  const std::vector<OpFamily> families = trained_families();
  std::vector<train::FamilyData> data(families.size());
  for (OpFamily f : families) data[std::size_t(f)].features = int(feature_names(f).size());
  res.tile_table_json = tile_table_of(rows, devices);
  // GEMM rows train on the tile the table gives (what a forecast will use), not the
  // measured one, so the utilization learned matches the tile chosen at prediction time.
  const TileTable table = parse_tile_table(res.tile_table_json, "tile table");
  for (const MeasuredKernel& r : rows) {
    const GpuSpec& gpu = devices.at(r.device);
    data[std::size_t(op_family(r.kernel.op))].samples.push_back(
        train::make_sample(gpu, r, table, library_profile_for(gpu)));
  }
  if (config.max_rows > 0) {
    train::Rng pick(config.seed ^ 0x5eedull);
    for (auto& d : data) {
      auto& s = d.samples;
      for (std::size_t i = s.size(); i > 1; --i) std::swap(s[i - 1], s[pick.below(i)]);
      if (std::int64_t(s.size()) > config.max_rows) s.resize(std::size_t(config.max_rows));
    }
  }

  for (OpFamily f : families)
    clock.total_work += double(data[std::size_t(f)].samples.size()) *
                        family_settings(f, config).epochs * family_traits(f).fit.cost;

  nlohmann::ordered_json j;
  j["format"] = "tilecast-kernel-weights-1";
  j["command"] = command;
  j["seed"] = config.seed;
  j["epochs"] = config.epochs;
  j["max_rows"] = config.max_rows;
  res.hash = training_hash(csvs, device_files, config);
  j["hash"] = "fnv1a64:" + hex64(res.hash);
  j["config"] = train_config_text(config);
  j["inputs"] = nlohmann::ordered_json::array();
  for (const TrainText& c : csvs) j["inputs"].push_back(c.name);
  j["held_out_devices"] = config.held_out_devices;
  j["rows_used"] = res.rows_used;
  j["rows_held_out"] = res.rows_held_out;
  std::set<std::string> trained_on;
  for (const MeasuredKernel& r : rows) trained_on.insert(r.device);
  j["trained_on"] = trained_on;  // the GPUs measured: forecasts say when a GPU is unlike them
  j["families"] = nlohmann::ordered_json::object();

  std::optional<FamilyModel> elementwise;  // once trained: the row families' streaming time
  for (OpFamily f : families) {
    train::FamilyData& d = data[std::size_t(f)];
    const FamilyTraits& traits = family_traits(f);
    const std::string name(traits.name);
    if (d.samples.empty()) continue;
    // Softmax and layer norm learn against the element-wise model's streaming time: that
    // ratio varies far less between GPU generations than their roofline ratio
    // (docs/kernel-model.md); layer norm's covers its re-read (learned_against_traffic).
    const bool streaming = elementwise && traits.streaming_traffic;
    if (streaming)
      for (train::Sample& s : d.samples) {
        const StreamingTime ref = reference_streaming_time(traits, *elementwise, *s.gpu,
                                                           library_profile_for(*s.gpu), s.kernel);
        s.tile_ms = (config.row_reference_without_launch ? ref.stream_ms : ref.total_ms) /
                    std::max(s.waves, 1.0);
      }
    train::FitSettings st = family_settings(f, config);
    st.overhead_max_ms = train::overhead_cap_ms(d);
    const double unit = double(d.samples.size()) * traits.fit.cost;
    const train::FitResult fit =
        train::fit_family(d, st, config.seed * 1000003ull + std::uint64_t(f),
                          clock.epochs_of(name, st.epochs, unit, progress));
    res.losses[name] = {fit.first_loss, fit.last_loss, std::int64_t(d.samples.size())};
    nlohmann::ordered_json fam = train::family_entry(d, fit, feature_names(f), st.overhead_max_ms);
    if (streaming)
      fam["tile_time"] =
          std::string(traits.learned_against_traffic ? "streaming traffic" : "streaming") +
          (config.row_reference_without_launch ? " without launch" : "");
    train::add_nets(fam, fit);
    if (name == kStreamingFamily)
      elementwise = parse_family_model(fam.dump(), "trained element-wise model", f);
    j["families"][name] = fam;
  }
  res.weights_json = j.dump();
  return res;
}

}  // namespace tilecast
