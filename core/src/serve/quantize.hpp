// The types a served model computes and stores in (issue 30 item 4), decided here once for the
// static forecast, the load simulator and the memory model: W8A8 FP8 (the layers' linear GEMMs
// at the FP8 peak behind an activation-quantize kernel, their weights 1 byte), weight-only INT8 /
// INT4 (packed weights read and dequantized), MXFP4 experts (gpt-oss's checkpoint: W4A16, or W4A8
// on GPUs with FP4 units), an FP8 KV cache; everything else in the activation
// type (BF16 beside FP8 GEMMs). With them travels how the decode kernel reads that cache
// (serve/decode_attention.hpp), which the same graph pass applies.
#pragma once

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/serving.hpp"

namespace tilecast::detail {

struct ServingTypes {
  DataType gemm = DataType::bf16;  // the layers' linear GEMMs (the request's precision)
  DataType act = DataType::bf16;   // every other kernel, the communication, the activations
  DataType kv = DataType::bf16;    // the KV cache
  WeightFormat weights = WeightFormat::native;
  double weight_bytes = 2;         // per parameter of a quantized linear (packed, with its scales)
  bool experts_only = false;       // the format covers the routed experts only (mxfp4)
  bool dequantize_kernel = false;  // a compute-bound GEMM's weights dequantized by a kernel first
  // the packed GEMMs' activations quantized to 8 bits (W4A8, at the FP8 tensor peak): MXFP4
  // weights on a GPU with block-scaled FP4 tensor units (Blackwell, CDNA 4)
  bool w4a8 = false;
  // how a decode step's attention reads the cache (serve/decode_attention.hpp)
  DecodeAttention decode_attention = DecodeAttention::grouped;
  bool quantized() const { return gemm != act || weights != WeightFormat::native; }
};

// The request's types, checked against the GPU: throws Error naming the field and what is
// allowed (a precision the GPU has no units for names the catalog GPUs that have it).
ServingTypes serving_types(const GpuSpec& gpu, const ServingRequest& r);

// Whether a graph op is a weight GEMM the quantization covers (a linear, or a batched GEMM over
// stacked expert weights): the layers' linears (a format covering experts only: the routed
// experts'), not the embedding, the head (lm_head), nor a mixture's router gates (vLLM and
// TensorRT-LLM keep those in the activation type).
bool is_quantized_linear(const GraphSection& section, const GraphOp& op, const ServingTypes& t);

// The pass's graph in the activation type with the quantization applied (see the header).
OpGraph serving_graph(const GpuSpec& gpu, const ModelConfig& shard, Workload w, Engine engine,
                      const ServingTypes& t);

// The scheme a quantized GEMM type names: "W8A8" (fp8), "W4A4" (fp4).
std::string quantized_scheme(DataType gemm);

// The serving caveat on precision: "Precision: bf16 weights, activations and KV cache; ..." or
// what the quantization runs in which type.
std::string precision_caveat(const ServingTypes& t, Predictor predictor);

// Parameters of the quantized linears of the whole model (for the weights' memory). Throws Error
// when the format covers none of them (mxfp4 on a model without routed experts).
double quantized_param_count(const ModelConfig& model, const ServingTypes& t);

}  // namespace tilecast::detail
