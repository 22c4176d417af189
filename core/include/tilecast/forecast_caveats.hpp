// What a forecast cannot vouch for, in words for its reader: a GPU of a vendor or an
// architecture that no training measurement came from (learned forecasts only), a GPU spec
// whose numbers contradict each other, a sequence beyond what the model was built for.
#pragma once

#include <string>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast {

// `dtype`: the forecast's GEMM precision (the FP32 issue ceiling is said for FP32 only);
// `transfers_used`: as forecast_footing's (null: every transfer to the GPU's vendor and type).
std::vector<std::string> forecast_caveats(const GpuSpec& gpu, Predictor predictor,
                                          DataType dtype = DataType::fp32,
                                          const std::vector<std::string>* transfers_used = nullptr);

// The models serving `dtype` kernels (and the kernels beside FP8 GEMMs, BF16) on the GPU's
// vendor by transfer, with the model they came from (the registry's transfers; learned
// forecasts only, part of forecast_caveats): those the forecast used, when it says.
std::vector<std::string> transfer_caveats(const GpuSpec& gpu, DataType dtype,
                                          const std::vector<std::string>* transfers_used = nullptr);

// One kernel's forecast: the GPU's caveats, its model's transfer when it is one, and the
// kernel's own (kernel_caveats; a misaligned GEMM's, misaligned_gemm_caveat, where its floor set
// the forecast `f`). What `tilecast kernel` says, as text and as JSON.
std::vector<std::string> single_kernel_caveats(const GpuSpec& gpu, Predictor predictor,
                                               const Kernel& kernel, const KernelForecast& f);

// A spec no real GPU matches: an FP32 peak per SM per clock cycle far outside the 128-256 of
// every real GPU, or more memory bandwidth per SM than any GPU has.
std::vector<std::string> gpu_spec_warnings(const GpuSpec& gpu);

// A kernel whose operands and result (at its data type) exceed the GPU's memory: it cannot run
// as one kernel there, so its forecast is a bound, not a time; a layer norm row the library
// runs on its slower fallback.
std::vector<std::string> kernel_caveats(const GpuSpec& gpu, const Kernel& kernel);

// GEMMs ("<op> <dims>") with misaligned leading dimensions, forecast on the library's
// narrow-load kernels (kernel/library_profile.hpp), and how to avoid them.
std::string misaligned_gemm_caveat(const GpuSpec& gpu, const std::vector<std::string>& gemms);

// A half-precision forecast's precision (mixed-precision autocast for training, the whole pass
// in the type otherwise) and the ops no learned model covers (forecast by the roofline: the
// replays' fallback, forecast/kernel_times.hpp). At FP32 only the latter.
std::vector<std::string> precision_caveats(const Workload& w,
                                           const std::vector<std::string>& roofline_ops);
// The band of a whole-model or serving forecast in a precision other than the bands' own
// (tilecast/error_bands.hpp, model_band_transferred): where it comes from and how it was checked.
std::string transferred_band_caveat(DataType dtype);
// The band of a multi-GPU step: the single-GPU whole-model band carried over, and how it was
// checked (docs/parallel.md, "80% band").
std::string multi_gpu_band_caveat(DataType dtype);
// Why a Megatron-engine step carries no 80% band and what it is checked against instead.
std::string megatron_band_caveat();
// The ops no learned model covers, forecast by the roofline (empty when there are none).
std::vector<std::string> roofline_caveats(DataType dtype,
                                          const std::vector<std::string>& roofline_ops);

// A workload beyond the model's stated context (max_position_embeddings / n_positions); the
// assumptions of a mixture of experts (balanced routing) and of sliding-window layers.
std::vector<std::string> workload_caveats(const ModelConfig& model, const Workload& w);

}  // namespace tilecast
