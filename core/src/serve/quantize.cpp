// Serving quantization: one graph pass over the engine's graph (serve/quantize.hpp).
//   W8A8 (precision fp8)  each quantized linear's GEMM in FP8 (its model: the registry's, a
//                         transfer of the tensor-core GEMM model, forecast/model_registry.hpp),
//                         preceded by one dynamic activation quantize: a memory-bound kernel
//                         reading the BF16 input and writing FP8 (forecast as the BF16 scale
//                         kernel mulu at its 3 bytes of 4 an element); W4A4 (precision fp4,
//                         NVFP4/MXFP4) likewise at the FP4 peak, 0.5625 bytes an element
//   weight-only int8/int4 a memory-bound GEMM (its roofline's memory time above its compute
//                         time: decode) reads the packed weights (bytes at the packed width, the
//                         GEMM model's time scaled by the bytes); a compute-bound one (prefill)
//                         runs at the half peak after a dequantize kernel of the weights (packed
//                         read, BF16 write), as AWQ's kernels do past a few hundred tokens
//   weights mxfp4         the routed experts only (GraphOp::routed_expert), read packed where
//                         memory-bound and upcast inside the GEMM (no dequantize kernel); on a
//                         GPU with block-scaled FP4 units each after an MXFP8 activation quantize
//                         at the FP8 peak (W4A8)
//   KV cache fp8          K and V stored in 1 byte: the fused engine's cache write and attention
//                         reads at 1 byte (graph/engines/fused.cpp)
//   decode attention      per query head: a decode step's attention reads the K/V cache once
//                         per query head (serve/decode_attention.hpp)
#include "serve/quantize.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "common/format.hpp"
#include "graph/builder.hpp"
#include "serve/decode_attention.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {
namespace {

constexpr EnumName<WeightFormat> kWeightNames[] = {{"native", WeightFormat::native},
                                                   {"int8", WeightFormat::int8},
                                                   {"int4", WeightFormat::int4},
                                                   {"mxfp4", WeightFormat::mxfp4}};

// What each packed format stores and covers, in kWeightNames' order (native: none).
struct PackedFormat {
  double bytes = 0;                // per weight, with its scales
  bool experts_only = false;       // only the routed experts' weights (the rest native)
  bool dequantize_kernel = false;  // a compute-bound GEMM first dequantizes in a kernel of its own
  bool a8_on_fp4_units = false;    // W4A8 (8-bit activations, FP8 peak) where block-scaled FP4
                                   // tensor units run it (a GPU with an FP4 peak)
  std::string_view quant_method;   // a checkpoint config's quantization_config.quant_method
};
// INT8 with one FP16 scale per output channel (negligible); INT4 in groups of 128 with an FP16
// scale and a 4-bit zero point each (AWQ's and GPTQ's default group size:
// https://github.com/casper-hansen/AutoAWQ, https://github.com/AutoGPTQ/AutoGPTQ), dequantized
// by a kernel of its own past a few hundred tokens, as AWQ's kernels do. MXFP4: 4-bit E2M1
// values with one 8-bit power-of-two (E8M0) scale per block of 32 (OCP Microscaling Formats
// (MX) v1.0: 4.25 bits a weight), gpt-oss's checkpoint format for its experts only (its
// config's quantization_config: attention, router, embeddings and head in BF16); the MoE
// kernels that read it upcast the weights inside the GEMM (TensorRT-LLM's MoE backends:
// MXFP4 weights with BF16 activations on Hopper, MXFP8 activations on Blackwell).
constexpr PackedFormat kPacked[] = {{},
                                    {1.0, false, true, false, ""},
                                    {0.5 + (2.0 + 0.5) / 128, false, true, false, ""},
                                    {0.5 + 1.0 / 32, true, false, true, "mxfp4"}};
static_assert(std::size(kPacked) == std::size(kWeightNames));

}  // namespace

EnumNames<WeightFormat> weight_format_names() { return kWeightNames; }
std::string_view weight_format_name(WeightFormat w) { return enum_name(weight_format_names(), w); }
WeightFormat parse_weight_format(std::string_view word) {
  return parse_enum(weight_format_names(), word, "a weight format");
}

std::vector<std::string_view> checkpoint_quant_methods() {
  std::vector<std::string_view> out;
  for (const PackedFormat& f : kPacked)
    if (!f.quant_method.empty()) out.push_back(f.quant_method);
  return out;
}

WeightFormat checkpoint_weight_format(const ModelConfig& model, DataType precision) {
  if (model.checkpoint_weights.empty() ||
      (precision != DataType::fp16 && precision != DataType::bf16))
    return WeightFormat::native;
  for (std::size_t i = 0; i < std::size(kPacked); ++i)
    if (kPacked[i].quant_method == model.checkpoint_weights) return kWeightNames[i].value;
  return WeightFormat::native;
}

namespace detail {
namespace {

// Linears kept in the activation type: a mixture's router gates (named "router" or
// "gate (router)" by the engines, "shared_expert_gate").
bool kept_linear(const std::string& name) {
  return name.find("router") != std::string::npos || name == "shared_expert_gate";
}

// The fused engine's cache write (graph/engines/fused.cpp).
constexpr std::string_view kKvCacheWrite = "kv cache write";

GraphOp elementwise_pass(const std::string& name, std::int64_t rows, std::int64_t cols,
                         DataType act, double bytes_per_element) {
  const std::int64_t dims[2] = {rows, cols};
  GraphOp q;
  q.kernel = make_kernel(Op::mulu, dims, 2, act);
  q.kind = OpKind::elementwise;
  q.phase = Phase::forward;
  q.name = name;
  q.fused_kernels = 1;  // one kernel, forecast as mulu with its traffic scaled
  q.traffic_scale = bytes_per_element / (2 * dtype_bytes(act));
  return q;
}

}  // namespace

ServingTypes serving_types(const GpuSpec& gpu, const ServingRequest& r) {
  if (std::find(std::begin(kServingPrecisions), std::end(kServingPrecisions), r.dtype) ==
      std::end(kServingPrecisions))
    throw Error("precision " + std::string(dtype_name(r.dtype)) + ": serving takes " +
                enum_names_of(dtype_names(), kServingPrecisions, ", "));
  ServingTypes t;
  t.gemm = r.dtype;
  t.act = activation_dtype(r.dtype);
  t.kv = r.kv_cache.value_or(t.act);
  t.weights = r.weights;
  t.decode_attention = r.decode_attention;
  require_precision(gpu, t.act);
  require_precision(gpu, t.gemm);
  if (t.kv != t.act && t.kv != DataType::fp8)
    throw Error("kv cache " + std::string(dtype_name(t.kv)) +
                ": allowed: " + std::string(dtype_name(t.act)) + " (the activations' type) or fp8");
  if (t.kv != t.act && r.engine != Engine::fused)
    throw Error("kv cache fp8: the fused engine's (vLLM-like) option; engine " +
                std::string(engine_name(r.engine)) + " keeps the cache in " +
                std::string(dtype_name(t.act)));
  if (t.decode_attention != DecodeAttention::grouped && r.engine != Engine::fused)
    throw Error("decode attention " + std::string(decode_attention_name(t.decode_attention)) +
                ": the fused engine's (vLLM-like) option; engine " +
                std::string(engine_name(r.engine)) + " materialises the attention scores");
  if (t.weights != WeightFormat::native &&
      (t.gemm != t.act || (t.act != DataType::fp16 && t.act != DataType::bf16)))
    throw Error("weights " + std::string(weight_format_name(t.weights)) +
                ": weight-only quantization runs with fp16 or bf16 activations, not precision " +
                std::string(dtype_name(r.dtype)));
  const PackedFormat& f = kPacked[int(t.weights)];
  t.weight_bytes = t.weights == WeightFormat::native ? dtype_bytes(t.gemm) : f.bytes;
  t.experts_only = f.experts_only;
  t.dequantize_kernel = f.dequantize_kernel;
  t.w4a8 = f.a8_on_fp4_units && gpu_has_precision(gpu, DataType::fp4) &&
           gpu_has_precision(gpu, DataType::fp8);
  return t;
}

std::string quantized_scheme(DataType gemm) {
  // weights and activations both at the GEMM type's width: W8A8 (fp8), W4A4 (fp4)
  const std::string bits = std::to_string(int(8 * dtype_bytes(gemm)));
  return "W" + bits + "A" + bits;
}

bool is_quantized_linear(const GraphSection& section, const GraphOp& op, const ServingTypes& t) {
  // a linear, or a batched GEMM over stacked weights (experts every token computes)
  const bool weight_gemm =
      op.kernel.op == Op::linear || (op.kernel.op == Op::bmm && op.param_elements > 0);
  if (!weight_gemm || op.phase != Phase::forward || section.name == "head" ||
      section.name == "embeddings" || (t.experts_only && !op.routed_expert))
    return false;
  return !kept_linear(op.name);
}

OpGraph serving_graph(const GpuSpec& gpu, const ModelConfig& shard, Workload w, Engine engine,
                      const ServingTypes& t) {
  w.dtype = t.act;
  OpGraph g = build_gpu_graph(gpu, shard, w, engine);
  // a decode step's attention reads each K/V head once, or once per query head
  const double kv_reads = w.mode == Mode::decode ? decode_kv_reads(t.decode_attention, shard) : 1;
  if (!t.quantized() && t.kv == t.act && kv_reads == 1) return g;
  const double eb = dtype_bytes(t.act);
  // an FP8 cache (the fused engine's only): the cache write (K and V read at the activations'
  // width, written at the cache's) and the fused attention's K and V reads at the cache's width
  const double kv_ratio = dtype_bytes(t.kv) / eb;
  const double q_bytes = 2 * double(w.batch) * double(w.query_len) * double(shard.num_heads) *
                         double(shard.head_dim) * eb;  // Q read, output written
  for (GraphSection& s : g.sections) {
    std::vector<GraphOp> ops;
    ops.reserve(s.ops.size() * 2);
    for (GraphOp& o : s.ops) {
      if ((kv_ratio != 1 || kv_reads != 1) && o.fused_bytes > 0)
        o.fused_bytes = q_bytes + (o.fused_bytes - q_bytes) * kv_ratio * kv_reads;
      if (kv_ratio != 1 && o.name == kKvCacheWrite) {  // its copy kernel's traffic scaled
        o.fused_kernels = 1;
        o.chain_flops = 0;
        o.traffic_scale = (1 + kv_ratio) / 2;
      }
      if (!t.quantized() || !is_quantized_linear(s, o, t)) {
        ops.push_back(std::move(o));
        continue;
      }
      // groups (1 for a linear) x rows rows of `in` features into `out`, a weight per group
      const std::int64_t groups = o.kernel.dims[0], in = o.kernel.dims[2], out = o.kernel.dims[3];
      const std::int64_t rows = GraphBuilder::mul(double(groups), double(o.kernel.dims[1]));
      if (t.gemm != t.act) {  // W8A8
        ops.push_back(elementwise_pass(o.name + " (activation quantize)", rows, in, t.act,
                                       eb + dtype_bytes(t.gemm)));
        o.kernel.dtype = t.gemm;
        ops.push_back(std::move(o));
        continue;
      }
      const std::string format(weight_format_name(t.weights));
      if (t.w4a8) {  // activations quantized to MXFP8 (a scale byte per 32), the GEMM at FP8
        ops.push_back(elementwise_pass(o.name + " (activation quantize)", rows, in, t.act,
                                       eb + 1 + 1.0 / 32));
        o.kernel.dtype = DataType::fp8;
      }
      // packed weights: bytes at the packed width where the weights' reading bounds the GEMM
      const double weights = double(groups) * (double(in) * double(out));
      const double bytes = kernel_bytes(o.kernel);
      const double compute_ms = kernel_flops(o.kernel) / (peak_gflops(gpu, o.kernel) * 1e6);
      const double memory_ms = bytes / (gpu.mem_bw_gbps * 1e6);
      const double stored = dtype_bytes(o.kernel.dtype);  // a weight's bytes in the kernel's type
      if (memory_ms >= compute_ms) {
        o.fused_kernels = 1;
        o.chain_flops = kernel_flops(o.kernel);
        o.traffic_scale = (bytes - weights * (stored - t.weight_bytes)) / bytes;
        o.name += " (" + format + " weights)";
        ops.push_back(std::move(o));
      } else {
        if (t.dequantize_kernel)
          ops.push_back(elementwise_pass(o.name + " (" + format + " dequantize)",
                                         GraphBuilder::mul(double(groups), double(in)), out, t.act,
                                         t.weight_bytes + eb));
        ops.push_back(std::move(o));
      }
    }
    s.ops = std::move(ops);
  }
  return g;
}

std::string precision_caveat(const ServingTypes& t, Predictor predictor) {
  const std::string act(dtype_name(t.act)), kv(dtype_name(t.kv)), gemm(dtype_name(t.gemm));
  const std::string by =
      "; kernels by the " + std::string(predictor_name(predictor)) + " predictor.";
  if (!t.quantized() && t.kv == t.act)
    return "Precision: " + act + " weights, activations and KV cache" + by;
  std::string s = "Precision: ";
  if (t.gemm != t.act)
    s += quantized_scheme(t.gemm) + " " + gemm + ": the layers' linear GEMMs at the " + gemm +
         " tensor peak with " + format_with("%.4g", dtype_bytes(t.gemm)) + "-byte weights" +
         (t.gemm == DataType::fp4 ? " (4-bit values and their block scales)" : "") +
         ", each after a dynamic activation-quantize kernel (" + act + " read, " + gemm +
         " written; counted apart, where engines may fuse it into the "
         "norm); the embedding, the head (lm_head), router gates, attention, norms and "
         "activations in " +
         act;
  else if (t.weights != WeightFormat::native) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", t.weight_bytes);
    const std::string format(weight_format_name(t.weights));
    if (t.experts_only)
      s += format +
           " experts (as gpt-oss's checkpoint stores them): the routed experts' weights "
           "packed (" +
           b +
           " bytes a weight with their block scales), the attention, router, "
           "embeddings and head in " +
           act + "; " +
           (t.w4a8 ? "the expert GEMMs with their activations quantized to MXFP8 (each after a "
                     "quantize kernel) at the FP8 tensor peak (W4A8, as TensorRT-LLM runs "
                     "gpt-oss on Blackwell), reading the packed weights"
                   : "the expert GEMMs read the packed weights and upcast them inside the GEMM, "
                     "at the " +
                         act + " peak (W4A16, as TensorRT-LLM runs gpt-oss on Hopper)") +
           "; everything else in " + act;
    else
      s += "weight-only " + format +
           " (AWQ/GPTQ style): the layers' linear weights stored packed (" + b +
           " bytes a weight with their scales); a memory-bound GEMM (decode) reads them packed, "
           "a compute-bound one (prefill) runs at the " +
           act + " peak after a dequantize kernel of its weights; everything else in " + act;
  } else
    s += act + " weights and activations";
  s += "; KV cache in " + kv +
       (t.kv != t.act ? " (written at 1 byte, read by the attention at 1 byte)" : "");
  return s + by;
}

double quantized_param_count(const ModelConfig& model, const ServingTypes& t) {
  // 64 tokens per expert: every expert then takes tokens (routed_experts: all but e^-64 of them),
  // so no expert's weights are listed on its router's op (kept in the activation type) as idle
  const std::int64_t tokens = 64 * std::max<std::int64_t>(1, model.num_experts);
  const OpGraph g = build_op_graph(model, make_workload(Mode::inference, tokens, 1));
  double n = 0;
  for (const GraphSection& s : g.sections)
    for (const GraphOp& o : s.ops)
      if (is_quantized_linear(s, o, t)) n += o.param_elements * double(s.count);
  if (!(n > 0))
    throw Error("weights " + std::string(weight_format_name(t.weights)) + ": " +
                (t.experts_only ? "a format of routed experts' weights (gpt-oss's checkpoint); " +
                                      model.name + " has no routed experts"
                                : model.name + " has no linear weights it covers") +
                "; allowed for it: " + [] {
                  std::string a = "native";
                  for (std::size_t i = 1; i < std::size(kPacked); ++i)
                    if (!kPacked[i].experts_only) a += ", " + std::string(kWeightNames[i].name);
                  return a;
                }());
  return n;
}

}  // namespace detail
}  // namespace tilecast
