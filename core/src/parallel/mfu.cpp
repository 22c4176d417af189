// Model FLOPs (Korthikanti et al. 2022 eq. 7, generalised), MFU and the price of GPU time:
// written once for the megatron engine and the eager training forecasts (tilecast/mfu.hpp).
#include "tilecast/mfu.hpp"

#include "parallel/megatron.hpp"
#include "tilecast/enum_names.hpp"

namespace tilecast {

namespace detail {

FlopsPerSequence model_flops(const MegatronShape& m, double s) {
  const double h = double(m.hidden), q = double(m.heads) * double(m.head_dim),
               kv = double(m.kv_heads) * double(m.head_dim), f = double(m.ffn);
  const double mlp = [&](double width) { return h * width * (m.gated_mlp ? 2 : 1) + width * h; }(f);
  double gemm_params = h * (q + 2 * kv) + q * h + mlp;
  if (m.experts > 0) {  // the active parameters: top_k experts, the router, the shared expert
    const double fe = double(m.expert_ffn), fs = double(m.shared_ffn);
    const double moe = double(m.top_k) * (h * fe * (m.gated_mlp ? 2 : 1) + fe * h) +
                       h * double(m.experts) + 3 * h * fs;
    gemm_params += m.moe_fraction * (moe - mlp);
  }
  FlopsPerSequence r;
  r.attention_core = 4 * s * s * q;
  r.layer = 2 * s * gemm_params + r.attention_core;
  r.logits = 2 * s * h * double(m.vocab);
  return r;
}

double step_model_flops(const MegatronShape& m, std::int64_t batch, std::int64_t seq) {
  const FlopsPerSequence fl = model_flops(m, double(seq));
  return 3 * double(batch) * (double(m.layers) * fl.layer + fl.logits);
}

}  // namespace detail

double training_model_flops(const ModelConfig& model, std::int64_t batch, std::int64_t seq) {
  return detail::step_model_flops(detail::megatron_shape(model), batch, seq);
}

double mfu_peak_tflops(const GpuSpec& gpu, DataType dtype) {
  if (dtype == DataType::fp32) return gpu.fp32_matrix_gflops / 1000;
  return gpu.peak_tflops_of(activation_dtype(dtype), ComputeUnit::tensor);
}

ModelUtilization model_utilization(double model_flops, double step_ms, std::int64_t gpus,
                                   double peak_tflops) {
  ModelUtilization u;
  const double seconds = step_ms / 1e3;
  u.peak_tflops = peak_tflops;
  u.model_tflops_per_gpu = model_flops / seconds / double(gpus) / 1e12;
  u.mfu = peak_tflops > 0 ? u.model_tflops_per_gpu / peak_tflops : 0;
  return u;
}

const char* const kMfuFormula =
    "Korthikanti et al. 2022 eq. 7: model FLOPs per step = 72 B L s h^2 (1 + s/(6h) + "
    "V/(12hL)) for GPT (here generalised to the layer's GEMM parameters, grouped-query "
    "attention and gated MLPs); MFU = model FLOPs / (step time x GPUs x peak)";

double gpu_time_cost(double price_per_gpu_hour, std::int64_t gpus, double ms) {
  return price_per_gpu_hour * double(gpus) * ms / 3.6e6;
}

}  // namespace tilecast
