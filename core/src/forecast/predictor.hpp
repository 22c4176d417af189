// Kernel predictors behind one interface: the roofline, and the learned tile/wave model over
// given weights and GEMM tile table. Which learned model forecasts a kernel is the model
// registry's answer (forecast/model_registry.hpp); tests register or construct their own.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "learned/tile_table.hpp"
#include "learned/weights.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast {

// FLOPs, bytes and the roofline bound, which every predictor reports; throws for a GPU that
// gives no finite roofline.
KernelForecast roofline_part(const GpuSpec& gpu, const Kernel& kernel);
// Sets the forecast's time, never under its roofline, and the utilization that implies (the
// roofline's share of the time past the launch overhead; 1 where the overhead is all of it).
void set_latency(KernelForecast& f, double latency_ms);
// An analytic model's forecast on top of roofline_part: its latency bounded below by the
// roofline, the plan's tiles and waves, its per-launch overhead and the utilization they imply.
void finish_analytic(KernelForecast& f, double latency_ms, double overhead_ms,
                     const TilePlan& plan);

class KernelPredictor {
 public:
  virtual ~KernelPredictor() = default;
  virtual KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const = 0;
  virtual std::string_view name() const = 0;
  // Whether it has a model for the kernel's family (a learned set may lack one, e.g. the FP16
  // nets' softmax); forecasting a kernel it does not cover throws.
  virtual bool covers(const Kernel&) const { return true; }
};

// The plain roofline: latency = max(FLOPs / peak, bytes / bandwidth).
class RooflinePredictor final : public KernelPredictor {
 public:
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override;
  std::string_view name() const override { return "roofline"; }
};

// NeuSight's method: tiles and waves, utilization from the family's nets, never below the
// roofline. The weights and table must outlive it.
class LearnedPredictor final : public KernelPredictor {
 public:
  // `library`: the launch rules its tiles follow; null: the profile of each GPU's vendor.
  LearnedPredictor(const KernelWeights& weights, const TileTable& gemm_tiles,
                   const LibraryProfile* library = nullptr);
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override;
  std::string_view name() const override { return "tilecast"; }
  bool covers(const Kernel& kernel) const override;

 private:
  const KernelWeights& weights_;
  const TileTable& tiles_;
  const LibraryProfile* library_;
  // The weights' model per family registered at construction (null: none) and the streaming
  // family's, found once rather than by name on every forecast.
  std::vector<const FamilyModel*> by_family_;
  const FamilyModel* streaming_;
  const FamilyModel* model_of(const FamilyTraits& traits, Op op) const;
};

// A learned predictor that owns its weights and tile table (e.g. parsed from the files
// `tilecast train --out DIR` writes), for registering models trained at run time.
std::shared_ptr<const KernelPredictor> make_learned_predictor(KernelWeights weights,
                                                              TileTable gemm_tiles);

}  // namespace tilecast
