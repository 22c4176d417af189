#include "forecast/tensor_gemm_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "forecast/model_registry.hpp"
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
    KernelForecast f = roofline_part(gpu, kernel);
    const TilePlan plan = plan_kernel(gpu, kernel, no_table, library_profile_for(gpu));
    finish_analytic(f, model_.latency_ms(tensor_gemm_terms(gpu, kernel, plan)), model_.overhead_ms,
                    plan);
    return f;
  }
  std::string_view name() const override { return "tilecast"; }
  bool covers(const Kernel& kernel) const override { return family_of(kernel.op).name == "gemm"; }

 private:
  TensorGemmModel model_;
};

}  // namespace

std::shared_ptr<const KernelPredictor> make_tensor_gemm_predictor(const TensorGemmModel& model) {
  if (!model.valid())
    throw Error("tensor-core GEMM model: compute_scale and bandwidth_scale must be positive");
  return std::make_shared<TensorGemmPredictor>(model);
}

// The "tensor_gemm" kind (model_registry.cpp): its "model" file.
std::shared_ptr<const KernelPredictor> make_tensor_gemm(const ModelSource& src) {
  return make_tensor_gemm_predictor(
      *model_part<TensorGemmModel>(src, "model", parse_tensor_gemm_model));
}

}  // namespace tilecast
