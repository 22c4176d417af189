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
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/mfu.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

namespace {

constexpr EnumName<AttentionKernel> kAttentionKernels[] = {
    {"flash", AttentionKernel::flash},
    {"fused-softmax", AttentionKernel::fused_softmax},
    {"flash-attention", AttentionKernel::flash},
    {"fused_softmax", AttentionKernel::fused_softmax},
    {"softmax", AttentionKernel::fused_softmax}};

}  // namespace

EnumNames<AttentionKernel> attention_kernel_names() { return kAttentionKernels; }

std::string_view attention_kernel_name(AttentionKernel a) {
  return enum_name(attention_kernel_names(), a);
}

AttentionKernel parse_attention_kernel(std::string_view word) {
  if (word.empty()) return AttentionKernel::flash;
  return parse_enum(attention_kernel_names(), word,
                    "an attention kernel (flash: FlashAttention; fused-softmax: Megatron's "
                    "scale-mask-softmax, scores materialised)");
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
    return times.kernel(it.kernel).exec_ms * it.repeat;
  }

  PassTime pass(const std::vector<MegatronItem>& items, bool core_only = false) {
    PassTime t;
    double pending = 0;  // an overlapped collective waiting for the next kernel
    for (const MegatronItem& it : items) {
      if (it.is_comm) {
        if (core_only) continue;
        const Group group = it.group == MegatronGroup::cp   ? Group::cp
                            : it.group == MegatronGroup::ep ? Group::ep
                                                            : Group::tp;
        const double ms = coll.ms(it.collective, group, it.comm_bytes) * it.repeat;
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
  if (std::find(std::begin(kMegatronPrecisions), std::end(kMegatronPrecisions), w.dtype) ==
      std::end(kMegatronPrecisions))
    throw Error("precision " + std::string(dtype_name(w.dtype)) +
                ": the megatron engine trains in mixed precision; allowed: " +
                enum_names_of(dtype_names(), kMegatronPrecisions, ", "));
  require_precision(gpu, activation_dtype(w.dtype));
  require_precision(gpu, w.dtype);
  require_layout_count(c.dp, "dp");
  require_layout_count(c.tp, "tp");
  require_layout_count(c.pp, "pp");
  require_layout_count(c.microbatches, "microbatches");
  require_layout_count(c.virtual_stages, "virtual_stages");
  require_layout_count(c.cp, "cp");
  require_layout_count(c.ep, "ep");
  const long long gpus = c.gpus();
  const long long room = 1LL * system.gpus_per_node * system.max_nodes;
  if (gpus > room)
    throw Error("dp x tp x pp x cp = " + std::to_string(gpus) + " GPUs, more than " + system.id +
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
  if (c.cp > 1) {
    if (c.attention != AttentionKernel::flash)
      throw Error("cp " + std::to_string(c.cp) +
                  ": context parallelism runs ring attention over FlashAttention; set attention "
                  "flash (not fused-softmax) or cp 1");
    if (w.query_len % (2 * c.cp) != 0)
      throw Error("cp " + std::to_string(c.cp) +
                  " splits each sequence into 2 x cp = " + std::to_string(2 * c.cp) +
                  " chunks (load-balanced causal): seq " + std::to_string(w.query_len) +
                  " is not a multiple of " + std::to_string(2 * c.cp));
  }
  if (c.sequence_parallel && (w.query_len / c.cp) % c.tp != 0)
    throw Error("sequence parallelism splits the sequence over tp: seq " +
                std::to_string(w.query_len) + (c.cp > 1 ? " / cp " + std::to_string(c.cp) : "") +
                " is not a multiple of tp " + std::to_string(c.tp));
  if (c.ep > 1) {
    if (model.num_experts < 1)
      throw Error("ep " + std::to_string(c.ep) +
                  ": expert parallelism needs a mixture-of-"
                  "experts model; " +
                  model.name + " is dense (set ep 1)");
    if (c.dp % c.ep != 0)
      throw Error("ep " + std::to_string(c.ep) + " must divide dp " + std::to_string(c.dp) +
                  " (the expert-parallel ranks are data-parallel ranks for the dense layers)");
    if (model.num_experts % c.ep != 0)
      throw Error("ep " + std::to_string(c.ep) + " must divide " + model.name + "'s " +
                  std::to_string(model.num_experts) +
                  " experts; valid ep: " + divisors_of(model.num_experts));
    if (c.tp > 1 && !c.sequence_parallel)
      throw Error("ep " + std::to_string(c.ep) + " with tp " + std::to_string(c.tp) +
                  " needs sequence_parallel (Megatron-Core requires it for expert and tensor "
                  "parallelism together)");
  }
  const std::int64_t layers = model.num_layers;
  if (c.virtual_stages > 1 && c.pp < 2)
    throw Error("virtual_stages " + std::to_string(c.virtual_stages) +
                " (the interleaved schedule) needs pp >= 2");
  if (std::int64_t(c.pp) * c.virtual_stages > layers)
    throw Error("pp x virtual_stages = " + std::to_string(std::int64_t(c.pp) * c.virtual_stages) +
                " model chunks, more than " + model.name + "'s " + std::to_string(layers) +
                " layers");
  require_batch_split(w.batch, c.dp, c.microbatches, "replica");
  if (!(c.tokens >= 0) || !std::isfinite(c.tokens) || c.tokens > 1e18)
    throw Error("tokens must be a number from 0 to 1e18");
}

}  // namespace
}  // namespace detail

MegatronForecast forecast_megatron(const GpuSpec& gpu, const SystemSpec& system,
                                   const ModelConfig& model, const Workload& w,
                                   const MegatronConfig& c, Predictor predictor) {
  // Megatron's kernels taken as timed alone (its fused kernels run long enough for the host
  // to keep ahead; the published Megatron checks, docs/megatron.md, were made so)
  detail::KernelTimes times(gpu, predictor, Launch::engine);
  return detail::forecast_megatron_cached(gpu, system, model, w, c, times, true);
}

MegatronForecast detail::forecast_megatron_cached(const GpuSpec& gpu, const SystemSpec& system,
                                                  const ModelConfig& model, const Workload& w,
                                                  const MegatronConfig& c, KernelTimes& times,
                                                  bool explain) {
  using namespace detail;
  const Predictor predictor = times.predictor();
  const MegatronShape shape = megatron_shape(model);
  validate(gpu, system, model, w, c);
  ParallelConfig pc;
  pc.dp = c.dp;
  pc.tp = c.tp;
  pc.pp = c.pp;
  const StackFacts& facts = stack_facts();
  GroupExtras extras;
  extras.cp = c.cp;
  extras.ep = c.ep;
  extras.hierarchical = true;  // NCCL's intra-node and network steps (comm/hierarchical.cpp)
  const Collectives coll(system, pc, &facts.calibration, extras);

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
  d.cp = c.cp;
  d.ep = c.ep;
  d.sequence_parallel = c.sequence_parallel && c.tp > 1;
  d.attention = c.attention;
  d.dtype = w.dtype;

  // fused memory-bound kernels and the optimizer: the datasheet bandwidth at the vendor's stated
  // DRAM efficiency (gpu_catalog), or the datasheet peak where none is stated
  const double mem_gbps = gpu.mem_bw_gbps * (gpu.dram_efficiency > 0 ? gpu.dram_efficiency : 1.0);
  const double comm_sm_share = std::min(0.5, facts.nccl_channels / std::max(1, gpu.num_sm));
  const bool fp16 = w.dtype == DataType::fp16;
  const bool fp8 = w.dtype != activation_dtype(w.dtype);  // FP8 GEMMs in a BF16 model
  const DataType act = activation_dtype(w.dtype);
  const double grad_bytes_per_param = fp16 ? facts.grad_bytes_fp16 : facts.grad_bytes_bf16;
  Timer timer{gpu, times, coll, act, mem_gbps, double(w.query_len), comm_sm_share, {}};

  // a layer: dense, mixture of experts, or (models mixing both) their mean weighted by the
  // share of MoE layers
  const double moe_share = shape.experts > 0 ? shape.moe_fraction : 0.0;
  MegatronPass layer = megatron_layer(shape, d, moe_share >= 1.0);
  PassTime lf = timer.pass(layer.forward), lb = timer.pass(layer.backward);
  PassTime lr;  // recomputation before the layer's backward
  if (c.recompute == Recompute::full) lr = lf;
  if (c.recompute == Recompute::selective) lr = timer.pass(layer.forward, true);
  if (moe_share > 0 && moe_share < 1) {
    const MegatronPass moe = megatron_layer(shape, d, true);
    const PassTime mf = timer.pass(moe.forward), mb = timer.pass(moe.backward);
    PassTime mr;
    if (c.recompute == Recompute::full) mr = mf;
    if (c.recompute == Recompute::selective) mr = timer.pass(moe.forward, true);
    auto mix = [&](PassTime& a, const PassTime& b) {
      a.compute_ms += moe_share * (b.compute_ms - a.compute_ms);
      a.exposed_ms += moe_share * (b.exposed_ms - a.exposed_ms);
      a.comm_busy_ms += moe_share * (b.comm_busy_ms - a.comm_busy_ms);
    };
    mix(lf, mf);
    mix(lb, mb);
    mix(lr, mr);
    layer.params += moe_share * (moe.params - layer.params);
    layer.fp8_params += moe_share * (moe.fp8_params - layer.fp8_params);
    layer.expert_params = moe_share * moe.expert_params;
  }
  const MegatronPass emb = megatron_embedding(shape, d);
  const MegatronPass head = megatron_head(shape, d);
  // the work: each pass's items once (a layer stands for all), then a few steps per pipeline rank
  require_within_budget(double(layer.forward.size() + layer.backward.size() + emb.forward.size() +
                               emb.backward.size() + head.forward.size() + head.backward.size()) +
                            4.0 * double(c.pp),
                        "megatron training forecast", "pp");
  const PassTime ef = timer.pass(emb.forward), eb_ = timer.pass(emb.backward);
  const PassTime hf = timer.pass(head.forward), hb = timer.pass(head.backward);
  f.layer_forward_ms = lf.compute_ms + lf.exposed_ms;
  f.layer_backward_ms = lb.compute_ms + lb.exposed_ms + lr.compute_ms + lr.exposed_ms;

  // pipeline ranks
  const int pp = c.pp, v = c.virtual_stages, m = c.microbatches;
  f.layers_per_stage = layers_per_rank(shape.layers, pp, v);
  const double act_bytes = dtype_bytes(act);
  const double boundary =
      double(d.micro_batch) * double(d.seq / c.cp) * double(shape.hidden) * act_bytes;
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
    double fp8_params = 0;     // of params: its FP8 GEMMs' weights
    double expert_params = 0;  // of params: experts' (reduced over dp / ep)
    double forward = 0;        // one micro-batch's forward (compute and exposed collectives)
  };
  std::vector<Rank> ranks(static_cast<std::size_t>(pp), Rank{});
  for (int r = 0; r < pp; ++r) {
    Rank& k = ranks[std::size_t(r)];
    const double n = f.layers_per_stage[std::size_t(r)];
    k.compute = n * (lf.compute_ms + lb.compute_ms + lr.compute_ms);
    k.recompute = n * lr.compute_ms;
    k.tp_exposed = n * (lf.exposed_ms + lb.exposed_ms + lr.exposed_ms);
    k.params = n * layer.params;
    k.fp8_params = n * layer.fp8_params;
    k.expert_params = n * layer.expert_params;
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
    const int dense_dp = c.dp * c.cp, expert_dp = c.dp / c.ep;
    if (dense_dp > 1 || expert_dp > 1) {
      // dense gradients over dp x cp, the experts' over dp / ep (Megatron-Core's groups)
      const Collective rc =
          c.distributed_optimizer ? Collective::kReduceScatter : Collective::kAllReduce;
      const double reduce =
          coll.ms(rc, Group::dp_cp, (k.params - k.expert_params) * grad_bytes_per_param) +
          coll.ms(rc, Group::edp, k.expert_params * grad_bytes_per_param);
      const double last_bucket =
          reduce * std::min(1.0, facts.bucket_params / std::max(1.0, k.params));
      // buckets reduce under the last micro-batch's backward; the last one is exposed
      const double backward = k.compute + k.tp_exposed - k.forward;
      dp_ms = c.overlap_grad_reduce ? std::max(last_bucket, reduce - backward) +
                                          comm_sm_share * std::min(reduce, backward)
                                    : reduce;
      if (c.distributed_optimizer) {  // the updated parameters, gathered under the next forward
        const double gather =
            coll.ms(Collective::kAllGather, Group::dp_cp,
                    (k.params - k.expert_params) * act_bytes) +
            coll.ms(Collective::kAllGather, Group::edp, k.expert_params * act_bytes);
        dp_ms += c.overlap_grad_reduce ? std::max(0.0, gather - k.forward) +
                                             comm_sm_share * std::min(gather, k.forward)
                                       : gather;
      }
    }
    const double shard = c.distributed_optimizer
                             ? (k.params - k.expert_params) / dense_dp + k.expert_params / expert_dp
                             : k.params;
    // bytes per parameter: zero the main gradient (every local parameter), then on the
    // optimizer's shard: a 2-byte gradient copied to FP32 (6), (FP16) unscale and check 8, the
    // gradient norm 4, Adam 28 (read gradient, master, two moments; write master, two moments),
    // the copy into the half weights 6
    // FP8: the updated BF16 weights of the FP8 GEMMs cast once into FP8 and its transpose
    // (read 2 bytes, write 2: TransformerEngine caches them over the step's micro-batches)
    const double opt_bytes =
        k.params * grad_bytes_per_param +
        shard * ((grad_bytes_per_param < 4 ? 6 : 0) + (fp16 ? 8 : 0) + 4 + 28 + 6) +
        k.fp8_params * (act_bytes + 2 * dtype_bytes(w.dtype));
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
  f.model_flops = step_model_flops(shape, w.batch, w.query_len);
  double recomputed = 0;
  if (c.recompute == Recompute::full) recomputed = double(shape.layers) * fl.layer;
  if (c.recompute == Recompute::selective) recomputed = double(shape.layers) * fl.attention_core;
  f.hardware_flops = f.model_flops + double(w.batch) * recomputed;
  // MFU against the dense peak of the activation type (BF16 for FP8 training), as Megatron-LM
  // and NeMo report it
  const ModelUtilization u =
      model_utilization(f.model_flops, f.step_ms, c.gpus(), mfu_peak_tflops(gpu, w.dtype));
  f.peak_tflops = u.peak_tflops;
  f.model_tflops_per_gpu = u.model_tflops_per_gpu;
  f.mfu = u.mfu;
  f.hfu =
      f.peak_tflops > 0 ? f.hardware_flops / seconds / double(c.gpus()) / 1e12 / f.peak_tflops : 0;
  if (c.tokens > 0) f.train_days = c.tokens / f.tokens_per_s / 86400;
  f.roofline_fallbacks.assign(times.roofline_fallbacks().begin(), times.roofline_fallbacks().end());
  f.transfers_used.assign(times.transfers_used().begin(), times.transfers_used().end());

  for (int r = 0; r < pp; ++r) {
    RankMemoryInputs in;
    in.rank = r;
    in.layers = f.layers_per_stage[std::size_t(r)];
    in.params = ranks[std::size_t(r)].params;
    in.fp8_params = ranks[std::size_t(r)].fp8_params;
    in.expert_params = ranks[std::size_t(r)].expert_params;
    in.grad_bytes = grad_bytes_per_param;
    in.first = r == 0;
    in.last = r == pp - 1;
    const TrainingMemory mem = megatron_rank_memory(gpu, shape, d, c, in);
    if (r == 0 || mem.total_gb > f.memory.total_gb) f.memory = mem;
  }

  if (!explain) return f;
  auto& a = f.assumptions;
  a.push_back(
      "engine megatron: Megatron-Core with fused kernels (norms, bias + activation, "
      "bias-dropout-add, RoPE), activations in " +
      std::string(dtype_name(act)) + (fp16 ? ", FP16 gradients" : ", FP32 main gradients") +
      ", FP32 master weights and Adam states; a collective overlapping a kernel holds " +
      std::to_string(int(facts.nccl_channels)) + " SMs (NCCL's channels); system " + system.id +
      " (" + system.name + "); kernels forecast on " + gpu.name);
  if (fp8)
    a.push_back(
        "fp8 as TransformerEngine runs it (delayed scaling): every transformer-layer linear's "
        "forward, dgrad and wgrad GEMM at the " +
        std::string(dtype_name(w.dtype)) +
        " tensor peak (operands and result 1 byte), each forward GEMM's BF16 input and each "
        "dgrad's output gradient cast into FP8 and its transpose by a memory-bound kernel "
        "(read 2 bytes, write 2 an element; the casts TransformerEngine fuses into LayerNorm are "
        "counted apart, an upper bound), the FP8 weights and their transposes cast once a step "
        "(in the optimizer's time) and kept beside the BF16 weights (2 bytes a parameter); "
        "attention, norms, activations, the logits GEMM and communication in BF16; "
        "activations saved in BF16 (an upper bound: TransformerEngine saves the FP8 casts)");
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
  if (c.cp > 1)
    a.push_back("context parallel " + std::to_string(c.cp) + ": seq / " + std::to_string(c.cp) +
                " tokens of each sequence per rank in load-balanced causal chunks; ring attention "
                "passes K/V (backward: K/V and their gradients) to the next cp rank in cp - 1 "
                "send/recv steps overlapped with the FlashAttention kernel (only what the kernel "
                "does not hide is exposed); dense gradients reduced over dp x cp; " +
                coll.describe(Collective::kSendRecv, Group::cp, boundary / c.tp));
  if (shape.experts > 0)
    a.push_back("mixture of experts: " + std::to_string(shape.experts) + " experts, top-" +
                std::to_string(shape.top_k) + ", " +
                std::to_string(int(std::lround(100 * shape.moe_fraction))) +
                "% of layers; router GEMM and top-k softmax, permute, " +
                (c.ep > 1 ? "all-to-all dispatch and combine over ep " + std::to_string(c.ep) +
                                " (blocking), "
                          : std::string("no expert parallelism, ")) +
                std::to_string(shape.experts / c.ep) +
                " local experts' GEMMs (balanced routing), unpermute; expert gradients reduced "
                "over dp / ep" +
                (c.ep > 1 ? "; " + coll.describe(Collective::kAllToAll, Group::ep,
                                                 double(d.micro_batch) * double(d.seq / c.cp) *
                                                     double(shape.top_k * shape.hidden) * act_bytes)
                          : std::string()));
  a.push_back(
      "collectives across nodes: NCCL's hierarchical latency (steps inside a node at "
      "NVLink's, steps between nodes at the network's; ring or tree, whichever is "
      "faster), bandwidth of the slowest hop; each data-parallel ring uses its own NIC "
      "(rail-optimised)");
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
      std::string(dtype_name(act)) + " dense tensor" +
      (fp8 ? std::string(", not the FP8 peak: Megatron-LM and NeMo report FP8 runs' MFU "
                         "against the BF16 peak")
           : std::string()) +
      ")");
  return f;
}

}  // namespace tilecast
