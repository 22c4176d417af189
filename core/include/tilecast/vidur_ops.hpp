// The vidur compute layout (../shared/data/vidur/compute/<gpu>/<org>/<model>/mlp.csv: FP16
// per-operator timings of one transformer block at T tokens and tensor-parallel degree p):
// each row's operators as the kernels they launch at the row's shapes, and the per-op accuracy
// report of `tilecast eval-ops`. Text in, rows and reports out; the CLI reads the files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"
#include "tilecast/kernel_eval.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast {

// One operator of one row: the kernel it runs and its measured median.
struct VidurOpRow {
  std::string op;  // the layout's operator, e.g. "attn_pre_proj" (vidur_op_names())
  std::int64_t tokens = 0;
  std::int64_t tp = 1;
  Kernel kernel;
  double measured_ms = 0;
  std::string origin;  // "file:line"
};

// The operators of the layout, in its column order: emb, input_layernorm, attn_pre_proj,
// attn_rope, attn_post_proj, post_attention_layernorm, mlp_up_proj, mlp_act, mlp_down_proj, add.
const std::vector<std::string>& vidur_op_names();

// The kernel each operator runs (T tokens, d = n_embd, h = d / n_head, f = n_expanded_embd,
// p = TP degree; one kernel per operator, the custom ones of kernel/families/token_rows.cpp):
//   emb: embedding {T, d}; input/post_attention_layernorm: rmsnorm {T, d}, or ln {T, d} for a
//   model without a gated MLP (phi-2, the layout's only LayerNorm model: the file names no norm
//   type); attn_pre_proj: linear {1, T, d, (n_head + 2 n_kv_head) h / p}; attn_rope: rotary
//   {T, (n_head + n_kv_head) h / p}; attn_post_proj: linear {1, T, n_head h / p, d};
//   mlp_up_proj: linear {1, T, d, 2f / p (gated) or f / p}; mlp_act: silu_mul {T, f / p}
//   (gated) or gelu {T, f / p}; mlp_down_proj: linear {1, T, f / p, d}; add: add {T, d}.
// Operators without a median column or with an empty one (phi-2 has no
// post_attention_layernorm) are left out.
// Throws tilecast::Error naming `origin`, the line and the field for a malformed row, a
// missing column or a median that is not a positive number.
std::vector<VidurOpRow> parse_vidur_mlp_csv(std::string_view csv_text, std::string_view origin,
                                            DataType dtype = DataType::fp16);

// MAPE per operator on `gpu`, the roofline's beside it; groups in vidur_op_names() order.
// `weights_json`: a kernel weights file (`tilecast train-fp16`) to forecast with instead of the
// built-in learned models (GEMMs too, by the weights' net, unless `gemm_json` is given);
// `gemm_json`: a tensor-core GEMM model file (core/data/models/nvidia-half-gemm/tensor_gemm.json's
// format) for the GEMMs. Both ignored for the roofline predictor.
EvalReport evaluate_vidur_ops(const std::vector<VidurOpRow>& rows, const GpuSpec& gpu,
                              Predictor predictor = Predictor::tilecast,
                              std::string_view weights_json = {}, std::string_view gemm_json = {});

// One CSV line per row: origin, operator, tokens, TP, kernel, dims, measured, predicted and
// roofline ms, tile.
std::string vidur_rows_csv(const std::vector<VidurOpRow>& rows, const GpuSpec& gpu,
                           Predictor predictor = Predictor::tilecast,
                           std::string_view weights_json = {}, std::string_view gemm_json = {});

}  // namespace tilecast
