#include "forecast/amd_gemm_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "forecast/model_registry.hpp"
#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {
namespace {

class AmdGemmPredictor final : public KernelPredictor {
 public:
  AmdGemmPredictor(const AmdGemmModel& model, std::shared_ptr<const TileTable> tiles,
                   std::shared_ptr<const KernelPredictor> measured)
      : model_(model), tiles_(std::move(tiles)), measured_(std::move(measured)) {}

  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    if (family_of(kernel.op).name != "gemm")
      throw Error("the AMD GEMM model forecasts GEMMs only, not op '" +
                  std::string(op_name(kernel.op)) + "'");
    if (is_measured_gpu(*tiles_, gpu)) return measured_->forecast(gpu, kernel);
    KernelForecast f = roofline_part(gpu, kernel);
    const TilePlan plan = plan_kernel(gpu, kernel, *tiles_, library_profile_for(gpu));
    const AmdGemmParams& p = model_.of(kernel.op);
    finish_analytic(f, p.latency_ms(amd_gemm_terms(gpu, kernel, plan)), p.overhead_ms, plan);
    return f;
  }
  std::string_view name() const override { return "tilecast"; }
  bool covers(const Kernel& kernel) const override { return family_of(kernel.op).name == "gemm"; }

 private:
  AmdGemmModel model_;
  std::shared_ptr<const TileTable> tiles_;
  std::shared_ptr<const KernelPredictor> measured_;
};

}  // namespace

bool is_measured_gpu(const TileTable& tiles, const GpuSpec& gpu) {
  const auto key = gpu_table_key(gpu);
  for (const TileTable::Gpu& g : tiles.gpus) {
    bool same = true;
    for (int i = 0; i < 4; ++i)
      same =
          same && std::fabs(g.key[std::size_t(i)] - key[std::size_t(i)]) <= kMeasuredKeyTolerance;
    if (same) return true;
  }
  return false;
}

std::shared_ptr<const KernelPredictor> make_amd_gemm_predictor(
    const AmdGemmModel& model, std::shared_ptr<const TileTable> tiles,
    std::shared_ptr<const KernelPredictor> measured) {
  if (!model.valid())
    throw Error(
        "AMD GEMM model: compute_scale and tile_bandwidth_scale must be positive for both ops");
  if (!measured) throw Error("AMD GEMM model: no predictor for the measured GPUs given");
  if (!tiles) throw Error("AMD GEMM model: no tile table given");
  return std::make_shared<AmdGemmPredictor>(model, std::move(tiles), std::move(measured));
}

std::shared_ptr<const KernelPredictor> make_amd_gemm_predictor(
    const AmdGemmModel& model, TileTable tiles, std::shared_ptr<const KernelPredictor> measured) {
  return make_amd_gemm_predictor(model, std::make_shared<const TileTable>(std::move(tiles)),
                                 std::move(measured));
}

// The "amd_gemm" kind (model_registry.cpp): its "model" file, the "tile_table" of the model it
// uses (whose GPUs it measured) and that model's forecasts for those GPUs.
std::shared_ptr<const KernelPredictor> make_amd_gemm(const ModelSource& src) {
  const auto model = model_part<AmdGemmModel>(src, "model", parse_amd_gemm_model);
  return make_amd_gemm_predictor(*model, model_part<TileTable>(src, "tile_table", parse_tile_table),
                                 src.used());
}

}  // namespace tilecast
