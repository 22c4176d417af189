#include "forecast/predictor.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <mutex>
#include <utility>

#include "common/embedded_data.hpp"
#include "forecast/amd_gemm_predictor.hpp"
#include "forecast/tensor_gemm_predictor.hpp"
#include "kernel/family.hpp"
#include "learned/amd_gemm.hpp"
#include "learned/amd_models.hpp"
#include "learned/features.hpp"
#include "learned/latency.hpp"
#include "learned/tensor_gemm.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {

KernelForecast roofline_part(const GpuSpec& gpu, const Kernel& kernel) {
  KernelForecast f;
  f.flops = kernel_flops(kernel);
  f.bytes = kernel_bytes(kernel);
  f.roofline_ms = roofline_latency_ms(gpu, kernel, f.flops, f.bytes);
  if (!(f.roofline_ms > 0) || !std::isfinite(f.roofline_ms))
    throw Error("GPU '" + gpu.name + "' gives no finite roofline for this kernel");
  return f;
}

void finish_analytic(KernelForecast& f, double latency_ms, double overhead_ms,
                     const TilePlan& plan) {
  f.latency_ms = std::isfinite(latency_ms) ? std::max(latency_ms, f.roofline_ms) : f.roofline_ms;
  f.tiles = plan.tiles;
  f.waves = plan.waves;
  f.overhead_ms = overhead_ms;
  f.utilization = f.latency_ms > overhead_ms
                      ? std::min(1.0, f.roofline_ms / (f.latency_ms - overhead_ms))
                      : 1.0;
  f.tile = plan.label;
}

namespace {

// Members are built before the predictor that points into them, and the object never moves
// (it lives behind a shared_ptr).
class OwnedLearnedPredictor final : public KernelPredictor {
 public:
  OwnedLearnedPredictor(KernelWeights weights, TileTable tiles)
      : weights_(std::move(weights)), tiles_(std::move(tiles)), learned_(weights_, tiles_) {}
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    return learned_.forecast(gpu, kernel);
  }
  std::string_view name() const override { return learned_.name(); }
  bool covers(const Kernel& kernel) const override { return learned_.covers(kernel); }

 private:
  KernelWeights weights_;
  TileTable tiles_;
  LearnedPredictor learned_;
};

// A registry entry's model, built on its first forecast by a function that keeps it in a
// function-local static: a page whose first forecast is for an NVIDIA GPU in FP32 never
// parses the FP16 or AMD weights (docs/web.md, "Start-up").
class LazyPredictor final : public KernelPredictor {
 public:
  using Model = const KernelPredictor& (*)();
  explicit LazyPredictor(Model model) : model_(model) {}
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    return model_().forecast(gpu, kernel);
  }
  std::string_view name() const override { return "tilecast"; }  // every learned model's
  bool covers(const Kernel& kernel) const override { return model_().covers(kernel); }

 private:
  Model model_;
};

std::shared_ptr<const KernelPredictor> lazy(LazyPredictor::Model model) {
  return std::make_shared<LazyPredictor>(model);
}

const KernelPredictor& nvidia_fp32_model() {
  static const LearnedPredictor model(embedded_kernel_weights(), embedded_tile_table());
  return model;
}

const KernelPredictor& nvidia_half_model() {
  static const TileTable no_table;  // tensor-core GEMMs choose their tile by rule
  static const LearnedPredictor model(embedded_fp16_kernel_weights(), no_table);
  return model;
}

const KernelPredictor& nvidia_half_gemm_model() {
  static const auto model = make_tensor_gemm_predictor(embedded_tensor_gemm_model());
  return *model;
}

// The AMD FP32 nets: the AMD entry's model, and the matrix-core GEMM model's for the GPUs
// they were trained on.
const std::shared_ptr<const KernelPredictor>& amd_learned() {
  static const std::shared_ptr<const KernelPredictor> model =
      std::make_shared<LearnedPredictor>(embedded_amd_kernel_weights(), embedded_amd_tile_table());
  return model;
}

const KernelPredictor& amd_fp32_model() { return *amd_learned(); }

const KernelPredictor& amd_gemm_model() {
  static const auto model =
      make_amd_gemm_predictor(embedded_amd_gemm_model(), embedded_amd_tile_table(), amd_learned());
  return *model;
}

struct Entry {
  LearnedModelKey key;
  std::shared_ptr<const KernelPredictor> model;
};

// Lookups take no lock: entries are published by an atomic count and never change.
constexpr int kMaxEntries = 64;
struct Registry {
  std::mutex write;
  std::array<Entry, kMaxEntries> entries;
  std::atomic<int> count{0};
};

Registry& registry() {
  static Registry* const r = [] {
    auto* reg = new Registry;           // never destroyed, like the embedded data it points to
    Entry& embedded = reg->entries[0];  // FP32 kernels of every vendor and family
    embedded.key.dtype = DataType::fp32;
    embedded.model = lazy(nvidia_fp32_model);
    int n = 1;
    // FP16 and BF16 kernels on NVIDIA GPUs: the models trained on the vidur FP16 timings
    // (core/data/kernel_weights_fp16.json). BF16 takes the FP16 models at the BF16 peak: an
    // assumption (the data is FP16 only; docs/fp16-model.md).
    if (embedded::has("core/data/kernel_weights_fp16.json")) {
      const auto half = lazy(nvidia_half_model);
      for (DataType t : {DataType::fp16, DataType::bf16})
        reg->entries[std::size_t(n++)] = {{"NVIDIA", t, ""}, half};
    }
    // FP16 and BF16 GEMMs on NVIDIA GPUs: the analytic tensor-core model
    // (core/data/tensor_gemm_fp16.json), which beats the learned GEMM net on the GPU left out
    // (docs/fp16-model.md); more specific than the entries above, so it wins for GEMMs.
    if (embedded::has("core/data/tensor_gemm_fp16.json")) {
      const auto gemm = lazy(nvidia_half_gemm_model);
      for (DataType t : {DataType::fp16, DataType::bf16})
        reg->entries[std::size_t(n++)] = {{"NVIDIA", t, "gemm"}, gemm};
    }
    // FP32 kernels on AMD GPUs: the models trained on the MI100 and MI210 measurements
    // (core/data/kernel_weights_amd.json, tile_table_amd.json; docs/amd-model.md).
    if (embedded::has("core/data/kernel_weights_amd.json")) {
      reg->entries[std::size_t(n++)] = {{"AMD", DataType::fp32, ""}, lazy(amd_fp32_model)};
      // FP32 GEMMs on AMD GPUs not measured: the analytic matrix-core model
      // (core/data/gemm_amd_fp32.json), which beats the learned GEMM net on the GPU left out;
      // the measured MI100 and MI210 keep the net (docs/amd-model.md).
      if (embedded::has("core/data/gemm_amd_fp32.json"))
        reg->entries[std::size_t(n++)] = {{"AMD", DataType::fp32, "gemm"}, lazy(amd_gemm_model)};
    }
    reg->count.store(n, std::memory_order_release);
    return reg;
  }();
  return *r;
}

}  // namespace

KernelForecast RooflinePredictor::forecast(const GpuSpec& gpu, const Kernel& kernel) const {
  KernelForecast f = roofline_part(gpu, kernel);
  f.latency_ms = f.roofline_ms;
  f.tiles = 1;
  f.waves = 1;
  f.tile = "whole kernel";
  return f;
}

LearnedPredictor::LearnedPredictor(const KernelWeights& weights, const TileTable& gemm_tiles,
                                   const LibraryProfile* library)
    : weights_(weights),
      tiles_(gemm_tiles),
      library_(library),
      streaming_(weights.find(kStreamingFamily)) {
  for (int f = 0; f < family_count(); ++f)
    by_family_.push_back(weights.find(family_traits(OpFamily(f)).name));
}

const FamilyModel* LearnedPredictor::model_of(const FamilyTraits& traits, Op op) const {
  const std::size_t f = std::size_t(op_family(op));
  return f < by_family_.size() ? by_family_[f] : weights_.find(traits.name);
}

bool LearnedPredictor::covers(const Kernel& kernel) const {
  const FamilyTraits& traits = family_of(kernel.op);
  const FamilyModel* model = model_of(traits, kernel.op);
  return model && (!model->streaming_tiles || (streaming_ && traits.streaming_traffic));
}

KernelForecast LearnedPredictor::forecast(const GpuSpec& gpu, const Kernel& kernel) const {
  KernelForecast f = roofline_part(gpu, kernel);
  const FamilyTraits& traits = family_of(kernel.op);
  const FamilyModel* model = model_of(traits, kernel.op);
  if (!model)
    throw Error("no trained model for op '" + std::string(op_name(kernel.op)) +
                "' is built in; run scripts/train.sh or use --predictor roofline");
  const LibraryProfile& library = library_ ? *library_ : library_profile_for(gpu);
  const TilePlan plan = plan_kernel(gpu, kernel, tiles_, library);
  const double waves = double(plan.waves);
  // Row models learned against a streaming time (their weights say so): the element-wise
  // model's time to stream B x H elements, or the family's DRAM traffic where it is learned
  // against that (learned_against_traffic), is the reference of their utilization, and the
  // time of that traffic a lower bound. Models learned against the roofline (FP16 layer
  // norm) take neither.
  const double roofline_tile_ms = tile_roofline_ms(gpu, kernel, plan, library);
  double tile_ms = roofline_tile_ms;
  double traffic_ms = 0;
  if (model->streaming_tiles) {
    const FamilyModel* elementwise = streaming_;
    if (!elementwise || !traits.streaming_traffic)
      throw Error("the " + traits.name +
                  " model is learned against the element-wise model, which is not "
                  "built in; run scripts/train.sh or use --predictor roofline");
    const StreamingTime reference =
        reference_streaming_time(traits, *elementwise, gpu, library, kernel);
    traffic_ms =
        traits.learned_against_traffic
            ? reference.total_ms
            : traffic_streaming_ms(traits, *elementwise, gpu, library, kernel, reference.total_ms);
    tile_ms = (model->reference_without_launch ? reference.stream_ms : reference.total_ms) / waves;
  }
  const LearnedLatency fit = learned_latency(*model, gpu, kernel, plan, library, tile_ms);
  const UtilizationHeads& h = fit.heads;
  const double learned = fit.ms;
  f.latency_ms = std::isfinite(learned) ? std::max(learned, f.roofline_ms) : f.roofline_ms;
  f.latency_ms = std::max(f.latency_ms, traffic_ms);
  f.tiles = plan.tiles;
  f.waves = plan.waves;
  f.utilization = utilization(h, waves);
  if (model->streaming_tiles && learned > h.overhead_ms)  // as a share of the roofline
    f.utilization = std::min(1.0, waves * roofline_tile_ms / (learned - h.overhead_ms));
  f.overhead_ms = h.overhead_ms;
  f.tile = plan.label;
  return f;
}

std::shared_ptr<const KernelPredictor> make_learned_predictor(KernelWeights weights,
                                                              TileTable gemm_tiles) {
  return std::make_shared<OwnedLearnedPredictor>(std::move(weights), std::move(gemm_tiles));
}

void register_learned_model(LearnedModelKey key, std::shared_ptr<const KernelPredictor> model) {
  if (!model) throw Error("register_learned_model: no model given");
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.write);
  const int n = r.count.load(std::memory_order_relaxed);
  if (n >= kMaxEntries) throw Error("register_learned_model: the registry is full");
  r.entries[std::size_t(n)] = {std::move(key), std::move(model)};
  r.count.store(n + 1, std::memory_order_release);
}

namespace {

// The most specific entry for the kernel (vendor before family; among equals the latest), or
// null.
const KernelPredictor* find_learned_model(const GpuSpec& gpu, const Kernel& kernel) {
  const std::string_view family = family_of(kernel.op).name;
  const Registry& r = registry();
  const int n = r.count.load(std::memory_order_acquire);
  const KernelPredictor* best = nullptr;
  int best_score = -1;
  for (int i = 0; i < n; ++i) {
    const LearnedModelKey& key = r.entries[std::size_t(i)].key;
    if (key.dtype != kernel.dtype) continue;
    if (!key.vendor.empty() && key.vendor != gpu.vendor) continue;
    if (!key.family.empty() && key.family != family) continue;
    const int score = (key.vendor.empty() ? 0 : 2) + (key.family.empty() ? 0 : 1);
    if (score >= best_score) {
      best = r.entries[std::size_t(i)].model.get();
      best_score = score;
    }
  }
  return best;
}

}  // namespace

const KernelPredictor& learned_model(const GpuSpec& gpu, const Kernel& kernel) {
  const KernelPredictor* best = find_learned_model(gpu, kernel);
  if (!best)
    throw Error("no learned model for " + std::string(dtype_name(kernel.dtype)) +
                " kernels yet; use --predictor roofline");
  return *best;
}

bool has_learned_model(const GpuSpec& gpu, const Kernel& kernel) {
  const KernelPredictor* model = find_learned_model(gpu, kernel);
  return model && model->covers(kernel);
}

}  // namespace tilecast
