// The Megatron engine's training step (docs/megatron.md). One layer, the embedding and the head
// are timed once per configuration (graph/engines/megatron.cpp: each distinct kernel through the
// kernel models, FlashAttention through kernel/flash_attention, fused memory-bound kernels from
// their bytes, tensor-parallel collectives through the comm model), then composed:
//   per micro-batch on pipeline rank r   t_r = F_r + B_r + 2 v x p2p
//                                        (F, B: its layers, embedding on the first rank, head on
//                                        the last; B includes recomputation)
//   step = m x t_crit + (p - 1)/v x mean_r t_r      (1F1B; interleaved with v model chunks)
//        + the tied embedding's gradient all-reduce (first and last rank)
//        + exposed data-parallel reduction (buckets under the last backward) and parameter
//          all-gather (distributed optimizer)
//        + the optimizer step (memory-bound: zero the main gradients, norm, Adam, copy to half)
// A closed form: no per-micro-batch replay, so thousands of GPUs cost what eight do.
#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "common/embedded_data.hpp"
#include "forecast/kernel_times.hpp"
#include "forecast/work_budget.hpp"
#include "graph/engines/megatron_layer.hpp"
#include "kernel/flash_attention.hpp"
#include "parallel/megatron.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/error.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

std::string_view attention_kernel_name(AttentionKernel a) {
  return a == AttentionKernel::flash ? "flash" : "fused-softmax";
}

AttentionKernel parse_attention_kernel(std::string_view word) {
  if (word == "flash" || word == "flash-attention" || word.empty()) return AttentionKernel::flash;
  if (word == "fused-softmax" || word == "fused_softmax" || word == "softmax")
    return AttentionKernel::fused_softmax;
  throw Error("'" + std::string(word) +
              "' is not an attention kernel; allowed: flash (FlashAttention), fused-softmax "
              "(Megatron's scale-mask-softmax, scores materialised)");
}

namespace detail {
namespace {

// The software facts of core/data/engines/megatron.json.
struct StackFacts {
  double nccl_channels = 0, grad_bytes_fp16 = 0, grad_bytes_bf16 = 0, bucket_params = 0;
  double network_efficiency = 0;
  CommCalibration calibration;  // the comm model's, network curves at network_efficiency
};

StackFacts load_stack_facts() {
  constexpr const char* kPath = "core/data/engines/megatron.json";
  const std::string_view text = embedded::find(kPath);
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (text.empty() || j.is_discarded() || !j.is_object())
    throw Error(std::string(kPath) + " is missing or not valid JSON");
  auto num = [&](const nlohmann::json& o, const char* key, double lo, double hi) {
    if (!o.contains(key) || !o[key].is_number() || !(o[key].get<double>() >= lo) ||
        !(o[key].get<double>() <= hi))
      throw Error(std::string(kPath) + ": field '" + key + "' must be a number from " +
                  std::to_string(lo) + " to " + std::to_string(hi));
    return o[key].get<double>();
  };
  StackFacts f;
  f.nccl_channels = num(j, "nccl_channels", 0, 1024);
  if (!j.contains("grad_bytes") || !j["grad_bytes"].is_object())
    throw Error(std::string(kPath) + ": field 'grad_bytes' must be an object");
  f.grad_bytes_fp16 = num(j["grad_bytes"], "fp16", 2, 4);
  f.grad_bytes_bf16 = num(j["grad_bytes"], "bf16", 2, 4);
  f.bucket_params = num(j, "bucket_params", 1, 1e12);
  f.network_efficiency = num(j, "network_efficiency", 0.01, 1);
  f.calibration = default_comm_calibration();
  for (auto& [key, curve] : f.calibration.curves)
    if (key.first == LinkClass::kNetwork) curve.e_max = f.network_efficiency;
  f.calibration.fitted_on += "; network curves' e_max from core/data/engines/megatron.json";
  return f;
}

const StackFacts& stack_facts() {
  static const StackFacts f = load_stack_facts();
  return f;
}

struct PassTime {
  double compute_ms = 0, exposed_ms = 0, comm_busy_ms = 0;
};

struct Timer {
  const GpuSpec& gpu;
  KernelTimes& times;
  const Collectives& coll;
  DataType dtype;        // activations (flash attention's peak)
  double mem_gbps;       // fused memory-bound kernels and the optimizer
  double keys;           // keys per query (FlashAttention's efficiency)
  double comm_sm_share;  // SMs an overlapped collective holds (NCCL's channels / SMs)
  std::string flash;     // the FlashAttention kernel used, for the assumptions

  double kernel_ms(const MegatronItem& it) {
    if (it.flash_flops > 0) {
      const FlashAttentionTime f =
          flash_attention_time(gpu, dtype, it.flash_flops, it.flash_bytes, keys, it.flash_backward);
      if (flash.empty())
        flash =
            f.kernel + (f.assumed ? " (assumed: no published figure for " + gpu.architecture + ")"
                                  : std::string());
      return f.ms;
    }
    if (it.mem_bytes > 0) return it.mem_bytes / (mem_gbps * 1e9) * 1e3;
    return times.kernel(it.kernel).exec_ms;
  }

  PassTime pass(const std::vector<MegatronItem>& items, bool core_only = false) {
    PassTime t;
    double pending = 0;  // an overlapped collective waiting for the next kernel
    for (const MegatronItem& it : items) {
      if (it.is_comm) {
        if (core_only) continue;
        const double ms = coll.ms(it.collective, Group::tp, it.comm_bytes);
        t.comm_busy_ms += ms;
        if (it.overlapped)
          pending += ms;
        else
          t.exposed_ms += ms;
        continue;
      }
      if (core_only && !it.attention_core) continue;
      const double k = kernel_ms(it);
      t.compute_ms += k;
      if (pending > 0) {  // the rest of the collective, and the SMs it took from the kernel
        t.exposed_ms += std::max(0.0, pending - k) + comm_sm_share * std::min(pending, k);
        pending = 0;
      }
    }
    t.exposed_ms += pending;
    return t;
  }
};

void validate(const GpuSpec& gpu, const SystemSpec& system, const ModelConfig& model,
              const Workload& w, const MegatronConfig& c) {
  if (!w.training())
    throw Error("the megatron engine forecasts training; mode is " +
                std::string(mode_name(w.mode)));
  if (w.dtype == DataType::fp8)
    throw Error(
        "precision fp8: the megatron engine does not model FP8 training yet (issue 28); "
        "allowed: bf16, fp16");
  if (w.dtype != DataType::bf16 && w.dtype != DataType::fp16)
    throw Error("precision " + std::string(dtype_name(w.dtype)) +
                ": the megatron engine trains in mixed precision; allowed: bf16, fp16");
  require_precision(gpu, w.dtype);
  auto positive = [](long long v, const char* name) {
    if (v < 1 || v > 65536)
      throw Error(std::string(name) + " must be an integer from 1 to 65536, got " +
                  std::to_string(v));
  };
  positive(c.dp, "dp");
  positive(c.tp, "tp");
  positive(c.pp, "pp");
  positive(c.microbatches, "microbatches");
  positive(c.virtual_stages, "virtual_stages");
  const long long gpus = c.gpus();
  const long long room = 1LL * system.gpus_per_node * system.max_nodes;
  if (gpus > room)
    throw Error("dp x tp x pp = " + std::to_string(gpus) + " GPUs, more than " + system.id +
                " holds (" + std::to_string(system.gpus_per_node) + " per node x " +
                std::to_string(system.max_nodes) +
                " nodes); give a system file with a larger max_nodes");
  if (gpus > system.gpus_per_node && !system.network)
    throw Error(std::to_string(gpus) + " GPUs need more than one node of " + system.id +
                ", which has no network between nodes");
  if (c.tp > 1 && (model.num_heads % c.tp != 0 ||
                   (model.num_kv_heads % c.tp != 0 && c.tp % model.num_kv_heads != 0))) {
    std::string valid;
    for (int t : valid_tps(model)) valid += (valid.empty() ? "" : ", ") + std::to_string(t);
    throw Error("tp " + std::to_string(c.tp) + " does not divide " + model.name + "'s " +
                std::to_string(model.num_heads) + " attention heads; valid tp: " + valid);
  }
  if (c.sequence_parallel && w.query_len % c.tp != 0)
    throw Error("sequence parallelism splits the sequence over tp: seq " +
                std::to_string(w.query_len) + " is not a multiple of tp " + std::to_string(c.tp));
  const std::int64_t layers = model.num_layers;
  if (c.virtual_stages > 1 && c.pp < 2)
    throw Error("virtual_stages " + std::to_string(c.virtual_stages) +
                " (the interleaved schedule) needs pp >= 2");
  if (std::int64_t(c.pp) * c.virtual_stages > layers)
    throw Error("pp x virtual_stages = " + std::to_string(std::int64_t(c.pp) * c.virtual_stages) +
                " model chunks, more than " + model.name + "'s " + std::to_string(layers) +
                " layers");
  if (w.batch % c.dp != 0)
    throw Error("batch " + std::to_string(w.batch) +
                " (the global batch) does not divide over dp " + std::to_string(c.dp) +
                " replicas; valid dp: " + divisors_of(w.batch));
  const std::int64_t per = w.batch / c.dp;
  if (per % c.microbatches != 0)
    throw Error("batch " + std::to_string(w.batch) + " / dp " + std::to_string(c.dp) + " = " +
                std::to_string(per) + " sequences per replica do not divide into " +
                std::to_string(c.microbatches) +
                " micro-batches; valid microbatches: " + divisors_of(per));
  if (!(c.tokens >= 0) || !std::isfinite(c.tokens) || c.tokens > 1e18)
    throw Error("tokens must be a number from 0 to 1e18");
}

// Model FLOPs of one sequence's forward pass (Korthikanti eq. 7's convention: every attention
// score counted, causal or not), per layer and for the logits.
struct FlopsPerSequence {
  double layer = 0, logits = 0, attention_core = 0;
};
FlopsPerSequence model_flops(const MegatronShape& m, double s) {
  const double h = double(m.hidden), q = double(m.heads) * double(m.head_dim),
               kv = double(m.kv_heads) * double(m.head_dim), f = double(m.ffn);
  const double gemm_params = h * (q + 2 * kv) + q * h + h * f * (m.gated_mlp ? 2 : 1) + f * h;
  FlopsPerSequence r;
  r.attention_core = 4 * s * s * q;
  r.layer = 2 * s * gemm_params + r.attention_core;
  r.logits = 2 * s * h * double(m.vocab);
  return r;
}

}  // namespace
}  // namespace detail

MegatronForecast forecast_megatron(const GpuSpec& gpu, const SystemSpec& system,
                                   const ModelConfig& model, const Workload& w,
                                   const MegatronConfig& c, Predictor predictor) {
  using namespace detail;
  const MegatronShape shape = megatron_shape(model);
  validate(gpu, system, model, w, c);
  KernelTimes times(gpu, predictor);
  ParallelConfig pc;
  pc.dp = c.dp;
  pc.tp = c.tp;
  pc.pp = c.pp;
  const StackFacts& facts = stack_facts();
  const Collectives coll(system, pc, &facts.calibration);

  MegatronForecast f;
  f.config = c;
  f.workload = w;
  f.predictor = predictor;
  f.system = system.id;
  f.micro_batch = w.batch / c.dp / c.microbatches;
  MegatronDims d;
  d.micro_batch = f.micro_batch;
  d.seq = w.query_len;
  d.tp = c.tp;
  d.sequence_parallel = c.sequence_parallel && c.tp > 1;
  d.attention = c.attention;
  d.dtype = w.dtype;

  // fused memory-bound kernels and the optimizer: the datasheet bandwidth at the vendor's stated
  // DRAM efficiency (gpu_catalog), or the datasheet peak where none is stated
  const double mem_gbps = gpu.mem_bw_gbps * (gpu.dram_efficiency > 0 ? gpu.dram_efficiency : 1.0);
  const double comm_sm_share = std::min(0.5, facts.nccl_channels / std::max(1, gpu.num_sm));
  const bool fp16 = w.dtype == DataType::fp16;
  const double grad_bytes_per_param = fp16 ? facts.grad_bytes_fp16 : facts.grad_bytes_bf16;
  Timer timer{gpu, times, coll, w.dtype, mem_gbps, double(w.query_len), comm_sm_share, {}};

  const MegatronPass layer = megatron_layer(shape, d);
  const MegatronPass emb = megatron_embedding(shape, d);
  const MegatronPass head = megatron_head(shape, d);
  // the work: each pass's items once (a layer stands for all), then a few steps per pipeline rank
  require_within_budget(double(layer.forward.size() + layer.backward.size() + emb.forward.size() +
                               emb.backward.size() + head.forward.size() + head.backward.size()) +
                            4.0 * double(c.pp),
                        "megatron training forecast", "pp");
  const PassTime lf = timer.pass(layer.forward), lb = timer.pass(layer.backward);
  PassTime lr;  // recomputation before the layer's backward
  if (c.recompute == Recompute::full) lr = lf;
  if (c.recompute == Recompute::selective) lr = timer.pass(layer.forward, true);
  const PassTime ef = timer.pass(emb.forward), eb_ = timer.pass(emb.backward);
  const PassTime hf = timer.pass(head.forward), hb = timer.pass(head.backward);
  f.layer_forward_ms = lf.compute_ms + lf.exposed_ms;
  f.layer_backward_ms = lb.compute_ms + lb.exposed_ms + lr.compute_ms + lr.exposed_ms;

  // pipeline ranks
  const int pp = c.pp, v = c.virtual_stages, m = c.microbatches;
  f.layers_per_stage = layers_per_rank(shape.layers, pp, v);
  const double act_bytes = dtype_bytes(w.dtype);
  const double boundary = double(d.micro_batch) * double(d.seq) * double(shape.hidden) * act_bytes;
  // Megatron sends 1/tp of the boundary activation per rank (sequence parallelism, or the
  // scatter-gather optimisation followed by an all-gather over tp)
  double p2p_ms = 0;
  if (pp > 1) {
    p2p_ms = coll.ms(Collective::kSendRecv, Group::pp, boundary / c.tp);
    if (!d.sequence_parallel && c.tp > 1)
      p2p_ms += coll.ms(Collective::kAllGather, Group::tp, boundary);
  }
  struct Rank {
    double compute = 0, recompute = 0, tp_exposed = 0, p2p = 0, total = 0, params = 0;
    double forward = 0;  // one micro-batch's forward (compute and exposed collectives)
  };
  std::vector<Rank> ranks(static_cast<std::size_t>(pp), Rank{});
  for (int r = 0; r < pp; ++r) {
    Rank& k = ranks[std::size_t(r)];
    const double n = f.layers_per_stage[std::size_t(r)];
    k.compute = n * (lf.compute_ms + lb.compute_ms + lr.compute_ms);
    k.recompute = n * lr.compute_ms;
    k.tp_exposed = n * (lf.exposed_ms + lb.exposed_ms + lr.exposed_ms);
    k.params = n * layer.params;
    k.forward = n * (lf.compute_ms + lf.exposed_ms);
    if (r == 0) {
      k.forward += ef.compute_ms + ef.exposed_ms;
      k.compute += ef.compute_ms + eb_.compute_ms;
      k.tp_exposed += ef.exposed_ms + eb_.exposed_ms;
      k.params += emb.params;
    }
    if (r == pp - 1) {
      k.forward += hf.compute_ms + hf.exposed_ms;
      k.compute += hf.compute_ms + hb.compute_ms;
      k.tp_exposed += hf.exposed_ms + hb.exposed_ms;
      k.params += head.params;
      if (pp > 1 && shape.tied_embeddings) k.params += emb.params;  // the head's copy
    }
    k.p2p = pp > 1 ? 2.0 * v * p2p_ms : 0;
    k.total = k.compute + k.tp_exposed + k.p2p;
  }
  std::size_t crit = 0;
  double mean = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    mean += ranks[r].total / pp;
    if (ranks[r].total > ranks[crit].total) crit = r;
  }
  const Rank& cr = ranks[crit];
  f.stage_forward_ms = cr.forward;
  f.stage_backward_ms = cr.compute + cr.tp_exposed - cr.forward;
  MegatronBreakdown& bd = f.breakdown;
  bd.compute_ms = m * cr.compute;
  bd.recompute_ms = m * cr.recompute;
  bd.tp_comm_ms = m * cr.tp_exposed;
  bd.pp_comm_ms = m * cr.p2p;
  bd.bubble_ms = double(pp - 1) / v * mean;
  if (pp > 1 && shape.tied_embeddings)  // the embedding's gradient summed over first and last
    bd.pp_comm_ms += coll.ms(Collective::kAllReduce, Group::pp, emb.params * grad_bytes_per_param);

  // data parallelism and the optimizer, on every rank at once: the slowest sets the step
  for (const Rank& k : ranks) {
    double dp_ms = 0;
    if (c.dp > 1) {
      const double grad_bytes = k.params * grad_bytes_per_param;
      const double reduce =
          coll.ms(c.distributed_optimizer ? Collective::kReduceScatter : Collective::kAllReduce,
                  Group::dp, grad_bytes);
      const double last_bucket =
          reduce * std::min(1.0, facts.bucket_params / std::max(1.0, k.params));
      // buckets reduce under the last micro-batch's backward; the last one is exposed
      const double backward = k.compute + k.tp_exposed - k.forward;
      dp_ms = c.overlap_grad_reduce ? std::max(last_bucket, reduce - backward) +
                                          comm_sm_share * std::min(reduce, backward)
                                    : reduce;
      if (c.distributed_optimizer) {  // the updated parameters, gathered under the next forward
        const double gather = coll.ms(Collective::kAllGather, Group::dp, k.params * act_bytes);
        dp_ms += c.overlap_grad_reduce ? std::max(0.0, gather - k.forward) +
                                             comm_sm_share * std::min(gather, k.forward)
                                       : gather;
      }
    }
    const double shard = k.params / (c.distributed_optimizer ? c.dp : 1);
    // bytes per parameter: zero the main gradient (every local parameter), then on the
    // optimizer's shard: a 2-byte gradient copied to FP32 (6), (FP16) unscale and check 8, the
    // gradient norm 4, Adam 28 (read gradient, master, two moments; write master, two moments),
    // the copy into the half weights 6
    const double opt_bytes =
        k.params * grad_bytes_per_param +
        shard * ((grad_bytes_per_param < 4 ? 6 : 0) + (fp16 ? 8 : 0) + 4 + 28 + 6);
    const double opt_ms = opt_bytes / (mem_gbps * 1e9) * 1e3;
    if (dp_ms + opt_ms > bd.dp_comm_ms + bd.optimizer_ms) {
      bd.dp_comm_ms = dp_ms;
      bd.optimizer_ms = opt_ms;
    }
  }
  f.step_ms = bd.compute_ms + bd.tp_comm_ms + bd.pp_comm_ms + bd.bubble_ms + bd.dp_comm_ms +
              bd.optimizer_ms;
  if (!std::isfinite(f.step_ms) || !(f.step_ms > 0))
    throw Error("the forecast is not finite: the workload is too large for this model");

  const double seconds = f.step_ms / 1e3;
  f.samples_per_s = double(w.batch) / seconds;
  f.tokens_per_s = f.samples_per_s * double(w.query_len);
  f.tokens_per_s_per_gpu = f.tokens_per_s / double(c.gpus());
  const FlopsPerSequence fl = model_flops(shape, double(w.query_len));
  f.model_flops = 3 * double(w.batch) * (double(shape.layers) * fl.layer + fl.logits);
  double recomputed = 0;
  if (c.recompute == Recompute::full) recomputed = double(shape.layers) * fl.layer;
  if (c.recompute == Recompute::selective) recomputed = double(shape.layers) * fl.attention_core;
  f.hardware_flops = f.model_flops + double(w.batch) * recomputed;
  f.peak_tflops = gpu.peak_tflops_of(w.dtype, ComputeUnit::tensor);
  f.model_tflops_per_gpu = f.model_flops / seconds / double(c.gpus()) / 1e12;
  f.mfu = f.peak_tflops > 0 ? f.model_tflops_per_gpu / f.peak_tflops : 0;
  f.hfu =
      f.peak_tflops > 0 ? f.hardware_flops / seconds / double(c.gpus()) / 1e12 / f.peak_tflops : 0;
  if (c.tokens > 0) f.train_days = c.tokens / f.tokens_per_s / 86400;
  f.roofline_fallbacks.assign(times.roofline_fallbacks().begin(), times.roofline_fallbacks().end());

  for (int r = 0; r < pp; ++r) {
    RankMemoryInputs in;
    in.rank = r;
    in.layers = f.layers_per_stage[std::size_t(r)];
    in.params = ranks[std::size_t(r)].params;
    in.grad_bytes = grad_bytes_per_param;
    in.first = r == 0;
    in.last = r == pp - 1;
    const TrainingMemory mem = megatron_rank_memory(gpu, shape, d, c, in);
    if (r == 0 || mem.total_gb > f.memory.total_gb) f.memory = mem;
  }

  auto& a = f.assumptions;
  a.push_back(
      "engine megatron: Megatron-Core with fused kernels (norms, bias + activation, "
      "bias-dropout-add, RoPE), activations in " +
      std::string(dtype_name(w.dtype)) + (fp16 ? ", FP16 gradients" : ", FP32 main gradients") +
      ", FP32 master weights and Adam states; a collective overlapping a kernel holds " +
      std::to_string(int(facts.nccl_channels)) + " SMs (NCCL's channels); system " + system.id +
      " (" + system.name + "); kernels forecast on " + gpu.name);
  a.push_back("global batch " + std::to_string(w.batch) + " = dp " + std::to_string(c.dp) + " x " +
              std::to_string(m) + " micro-batches x " + std::to_string(f.micro_batch) +
              " sequences");
  a.push_back(
      c.attention == AttentionKernel::flash
          ? "attention: " + (timer.flash.empty() ? std::string("FlashAttention") : timer.flash) +
                " at its published efficiency (core/data/engines/flash_attention.json)" +
                (shape.causal ? ", causal (half the scores)" : "")
          : std::string("attention: scores materialised, Megatron's fused "
                        "scale-mask-softmax between two batched GEMMs"));
  if (c.tp > 1)
    a.push_back(
        std::string("tensor parallel ") + std::to_string(c.tp) +
        (d.sequence_parallel ? " with sequence parallelism (all-gather / reduce-scatter)"
                             : " (all-reduce)") +
        " on the critical path in forward; input-gradient collectives under the weight-"
        "gradient GEMMs in backward; " +
        coll.describe(d.sequence_parallel ? Collective::kReduceScatter : Collective::kAllReduce,
                      Group::tp, boundary));
  if (pp > 1)
    a.push_back("pipeline " + std::to_string(pp) + " ranks, " +
                (v > 1 ? "interleaved 1F1B with " + std::to_string(v) + " model chunks each"
                       : std::string("1F1B")) +
                ": bubble (p - 1)/v of a micro-batch's time; layers per rank " +
                [&] {
                  std::string s;
                  for (int n : f.layers_per_stage) s += (s.empty() ? "" : ",") + std::to_string(n);
                  return s;
                }() +
                "; send/recv of 1/tp of the boundary activation blocks each chunk");
  if (c.dp > 1)
    a.push_back(
        std::string(c.distributed_optimizer
                        ? "distributed optimizer: gradients reduce-scattered over dp, "
                          "half-precision parameters all-gathered"
                        : std::string("gradients all-reduced over dp")) +
        (fp16 ? " (FP16 gradients)" : " (FP32 gradients)") +
        (c.overlap_grad_reduce ? " in buckets under the last backward"
                               : " after the backward (no overlap)") +
        "; network collectives at " +
        std::to_string(int(std::lround(100 * facts.network_efficiency))) +
        "% of line rate (published NCCL figures, core/data/engines/megatron.json); " +
        coll.describe(c.distributed_optimizer ? Collective::kReduceScatter : Collective::kAllReduce,
                      Group::dp, facts.bucket_params * grad_bytes_per_param));
  a.push_back("recomputation " + std::string(recompute_name(c.recompute)) +
              (c.recompute == Recompute::selective ? " (the attention core re-run)" : "") +
              "; optimizer step (fused Adam) memory-bound at " +
              std::to_string(int(std::lround(mem_gbps))) + " GB/s");
  a.push_back(
      "MFU by Korthikanti et al. eq. 7 generalised: 3 x (2 x tokens x layer GEMM "
      "parameters + 4 x batch x seq^2 x heads x head_dim per layer + 2 x tokens x hidden "
      "x vocab), every score counted as in the paper; HFU adds the recomputed forward "
      "FLOPs; peak " +
      std::to_string(int(std::lround(f.peak_tflops))) + " TFLOP/s (" +
      std::string(dtype_name(w.dtype)) + " dense tensor)");
  return f;
}

}  // namespace tilecast
