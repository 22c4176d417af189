#include "forecast/tensor_gemm_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "learned/tile_table.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {
namespace {

class TensorGemmPredictor final : public KernelPredictor {
 public:
  explicit TensorGemmPredictor(const TensorGemmModel& model) : model_(model) {}

  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    if (family_of(kernel.op).name != "gemm")
      throw Error("the tensor-core GEMM model forecasts GEMMs only, not op '" +
                  std::string(op_name(kernel.op)) + "'");
    static const TileTable no_table;  // tensor-core GEMMs choose their tile by rule
    KernelForecast f;
    f.flops = kernel_flops(kernel);
    f.bytes = kernel_bytes(kernel);
    f.roofline_ms = roofline_latency_ms(gpu, kernel, f.flops, f.bytes);
    if (!(f.roofline_ms > 0) || !std::isfinite(f.roofline_ms))
      throw Error("GPU '" + gpu.name + "' gives no finite roofline for this kernel");
    const TilePlan plan = plan_kernel(gpu, kernel, no_table, library_profile_for(gpu));
    const double ms = model_.latency_ms(tensor_gemm_terms(gpu, kernel, plan));
    f.latency_ms = std::isfinite(ms) ? std::max(ms, f.roofline_ms) : f.roofline_ms;
    f.tiles = plan.tiles;
    f.waves = plan.waves;
    f.overhead_ms = model_.overhead_ms;
    f.utilization = f.latency_ms > model_.overhead_ms
                        ? std::min(1.0, f.roofline_ms / (f.latency_ms - model_.overhead_ms))
                        : 1.0;
    f.tile = plan.label;
    return f;
  }
  std::string_view name() const override { return "tilecast"; }

 private:
  TensorGemmModel model_;
};

}  // namespace

std::shared_ptr<const KernelPredictor> make_tensor_gemm_predictor(const TensorGemmModel& model) {
  if (!model.valid())
    throw Error("tensor-core GEMM model: compute_scale and bandwidth_scale must be positive");
  return std::make_shared<TensorGemmPredictor>(model);
}

}  // namespace tilecast
