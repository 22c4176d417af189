#include "forecast/predictor.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "forecast/model_registry.hpp"
#include "kernel/family.hpp"
#include "learned/features.hpp"
#include "learned/latency.hpp"
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

void set_latency(KernelForecast& f, double latency_ms) {
  f.latency_ms = std::isfinite(latency_ms) ? std::max(latency_ms, f.roofline_ms) : f.roofline_ms;
  f.utilization = f.latency_ms > f.overhead_ms
                      ? std::min(1.0, f.roofline_ms / (f.latency_ms - f.overhead_ms))
                      : 1.0;
}

void finish_analytic(KernelForecast& f, double latency_ms, double overhead_ms,
                     const TilePlan& plan) {
  f.tiles = plan.tiles;
  f.waves = plan.waves;
  f.overhead_ms = overhead_ms;
  set_latency(f, latency_ms);
  f.tile = plan.label;
}

namespace {

// A learned predictor with its weights and tile table: parsed from given texts (owned), or the
// embedded files (shared with every other reader of them). The one learned-net model.
class LearnedNetModel final : public KernelPredictor {
 public:
  LearnedNetModel(std::shared_ptr<const KernelWeights> weights,
                  std::shared_ptr<const TileTable> tiles)
      : weights_(std::move(weights)), tiles_(std::move(tiles)), learned_(*weights_, *tiles_) {}
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    return learned_.forecast(gpu, kernel);
  }
  std::string_view name() const override { return learned_.name(); }
  bool covers(const Kernel& kernel) const override { return learned_.covers(kernel); }

 private:
  std::shared_ptr<const KernelWeights> weights_;
  std::shared_ptr<const TileTable> tiles_;
  LearnedPredictor learned_;
};

}  // namespace

// The "learned_net" kind (model_registry.cpp): the "weights" file and, where the manifest has
// one, the "tile_table" (none: tensor-core GEMMs choose their tile by rule).
std::shared_ptr<const KernelPredictor> make_learned_net(const ModelSource& src) {
  static const TileTable no_table;
  auto weights = model_part<KernelWeights>(src, "weights", parse_kernel_weights);
  auto tiles = src.has("tile_table") ? model_part<TileTable>(src, "tile_table", parse_tile_table)
                                     : std::shared_ptr<const TileTable>(
                                           std::shared_ptr<const TileTable>(), &no_table);
  return std::make_shared<LearnedNetModel>(std::move(weights), std::move(tiles));
}

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
  return std::make_shared<LearnedNetModel>(
      std::make_shared<const KernelWeights>(std::move(weights)),
      std::make_shared<const TileTable>(std::move(gemm_tiles)));
}

}  // namespace tilecast
