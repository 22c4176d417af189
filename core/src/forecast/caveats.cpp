#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "forecast/model_registry.hpp"
#include "kernel/fp32_accumulate.hpp"
#include "kernel/issue_ceiling.hpp"
#include "kernel/library_profile.hpp"
#include "kernel/matrix_clock.hpp"
#include "learned/tile_table.hpp"
#include "model/architectures.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error_bands.hpp"
#include "tilecast/footing.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"

namespace tilecast {
namespace {

// A spec without an architecture (a custom file named like a catalog GPU) takes the catalog
// entry's; dataset device files already carry it (parse_gpu_spec copies it from the catalog).
const GpuSpec& described(const GpuSpec& gpu) {
  if (!gpu.architecture.empty()) return gpu;
  const GpuSpec* known = lookup_gpu(gpu.name);
  return known ? *known : gpu;
}

// A number in plain words: up to four significant digits, no exponent below 10^15.
std::string number(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  if (std::string(buf).find('e') == std::string::npos) return buf;
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string joined(const std::set<std::string>& items) {
  std::string s;
  std::size_t i = 0;
  for (const std::string& item : items) {
    if (i > 0) s += i + 1 == items.size() ? " and " : ", ";
    s += item;
    ++i;
  }
  return s;
}

// Which measured GPU's cuBLAS tile choices an FP32 GEMM on `g` follows, and why that one.
std::string tile_source(const GpuSpec& g) {
  const LibraryProfile& library = library_profile_for(g);
  const ModelManifest* model = manifest_for(g.vendor, DataType::fp32, "");
  if (!model) return {};
  const TileTable::Gpu* source =
      gemm_tile_source(embedded_tile_table(model->id), g, library, Op::linear);
  if (!source) return {};
  const std::string_view generation = library.gemm_kernel_generation(g.architecture);
  const bool same = !generation.empty() && source->kernel_generation == generation;
  std::string text =
      " Its FP32 GEMM tiles follow the cuBLAS kernels measured on the " + source->name +
      (same ? ", the measured GPU of the kernel generation the library profile gives " +
                  g.architecture + " (" + std::string(generation) + ")."
            : " (no GPU of its kernel generation was measured; the nearest by SMs, FLOP/s, "
              "bandwidth and L2).");
  if (library.gemm_kernel_generation_assumed(g.architecture))
    text += " That generation is assumed for " + g.architecture +
            ", not read from its kernel names: if its cuBLAS picks other tiles, its GEMMs are "
            "less certain (in the generalization protocol's Ampere fold, with no GPU of its "
            "generation measured, tile choice made most of the GEMM error; "
            "docs/generalization.md).";
  return text;
}

struct Measured {
  std::set<std::string> vendors;
  std::map<std::string, std::set<std::string>> architectures;  // by vendor
};

// Adds the vendors and architectures of the GPUs a model was trained on (its manifest's
// trained_on, looked up in the catalog).
void add_trained_on(Measured& r, const ModelManifest& m) {
  for (const std::string& name : m.trained_on)
    if (const GpuSpec* g = lookup_gpu(name)) {
      r.vendors.insert(g->vendor);
      if (!g->architecture.empty()) r.architectures[g->vendor].insert(g->architecture);
    }
}

// What the training GPUs say about `vendor`: those of the learned FP32 set serving it (the
// model registry's answer) when that set was trained on it, else of every set together (a GPU
// of another vendor). Read from the manifests: no weights are parsed for it.
Measured measured_for(std::string_view vendor) {
  Measured r;
  if (const ModelManifest* m = manifest_for(vendor, DataType::fp32, "")) {
    add_trained_on(r, *m);
    if (r.vendors.count(std::string(vendor))) return r;
  }
  r = {};
  for (const ModelManifest& m : embedded_manifests())
    if (m.families.empty() &&
        std::find(m.precisions.begin(), m.precisions.end(), DataType::fp32) != m.precisions.end())
      add_trained_on(r, m);
  return r;
}

// "GEMMs", "softmax kernels", ... for a list of families; "kernels" for every family (empty).
std::string families_served(const std::vector<std::string>& families) {
  if (families.empty()) return "kernels";
  std::string s;
  for (const std::string& f : families) s += (s.empty() ? "" : ", ") + f;
  return s == "gemm" ? "GEMMs" : s + " kernels";
}

}  // namespace

std::vector<std::string> transfer_caveats(const GpuSpec& gpu, DataType dtype,
                                          const std::vector<std::string>* transfers_used) {
  std::vector<std::string> c;
  std::set<DataType> types{dtype, activation_dtype(dtype)};
  for (DataType t : types)
    for (const TransferUse& u : transfers_to(described(gpu).vendor, t)) {
      // the families it forecast, where the forecast says; else every family it serves
      std::vector<std::string> families = u.model->families;
      if (transfers_used) {
        families = transfer_families_used(u, t, *transfers_used);
        if (families.empty()) continue;
      }
      std::set<std::string> on(u.model->trained_on.begin(), u.model->trained_on.end());
      c.push_back("Transferred model: " + std::string(dtype_name(t)) + " " +
                  families_served(families) + " on " + gpu.name + " take model '" + u.model->id +
                  "' (" + u.model->vendor + " " +
                  [&] {
                    std::string p;
                    for (DataType q : u.model->precisions)
                      p += (p.empty() ? "" : "/") + std::string(dtype_name(q));
                    return p;
                  }() +
                  ", trained on " + joined(on) + "): " + u.transfer->note +
                  " A transfer, not a measurement of these kernels.");
    }
  return c;
}

std::vector<std::string> single_kernel_caveats(const GpuSpec& gpu, Predictor predictor,
                                               const Kernel& kernel, const KernelForecast& f) {
  std::vector<std::string> transfers;
  if (predictor == Predictor::tilecast)
    if (std::string key = transfer_use_key(gpu, kernel); !key.empty()) transfers.push_back(key);
  std::vector<std::string> c = forecast_caveats(gpu, predictor, kernel.dtype, &transfers);
  for (std::string& k : kernel_caveats(gpu, kernel)) c.push_back(std::move(k));
  if (f.misaligned_floor) c.push_back(misaligned_gemm_caveat(gpu, {kernel_label(kernel)}));
  return c;
}

std::vector<std::string> gpu_spec_warnings(const GpuSpec& gpu) {
  std::vector<std::string> w;
  const double sm = std::max(gpu.num_sm, 1);
  // FP32 FLOPs per SM per clock cycle: 128 (Pascal to A100: 64 FMA lanes) to 256 (Ampere
  // GA10x, Ada, Hopper, Blackwell, CDNA 3) on every real GPU; outside 16..1024 the spec is a
  // unit slip or an impossible part. (Lanes per SM are not used: the dataset's AMD device
  // files count them differently.)
  const double per_cycle = gpu.fp32_gflops * 1000.0 / (sm * gpu.clock_mhz);
  if (per_cycle > 1024 || per_cycle < 16)
    w.push_back("This GPU's FP32 peak (" + number(gpu.fp32_gflops) + " GFLOP/s over " + number(sm) +
                " SMs at " + number(gpu.clock_mhz) + " MHz) means " + number(per_cycle) +
                " FLOPs per SM per clock cycle; real GPUs do 128 to 256. Check num_sm, "
                "boost_clock_mhz and fp32_gflops.");
  constexpr double kMaxBwPerSmGbps = 400;  // the catalog's highest is 54 (B200)
  if (gpu.mem_bw_gbps / sm > kMaxBwPerSmGbps)
    w.push_back("This GPU's memory bandwidth per SM (" + number(gpu.mem_bw_gbps / sm) +
                " GB/s) is far above any real GPU's (at most about 55 GB/s); check num_sm and "
                "mem_bw_gbps.");
  return w;
}

std::string misaligned_gemm_caveat(const GpuSpec& gpu, const std::vector<std::string>& gemms) {
  const LibraryProfile& library = library_profile_for(gpu);
  std::string multiples;  // "10.14x the compute and 5.37x the memory roofline at 1 to 2 bytes, ..."
  std::int64_t below = 1;
  for (const auto& c : library.misaligned_gemm_classes) {
    multiples += (multiples.empty() ? "" : "; ") + number(c.compute_multiple) +
                 "x the compute and " + number(c.memory_multiple) + "x the memory roofline at " +
                 std::to_string(below) +
                 (c.max_align_bytes > below ? " to " + std::to_string(c.max_align_bytes) : "") +
                 "-byte alignment";
    below = c.max_align_bytes + 1;
  }
  const std::string which =
      gemms.size() == 1 ? "The GEMM " + gemms[0] + " has"
                        : std::to_string(gemms.size()) + " GEMMs (e.g. " + gemms[0] + ") have";
  return which + " a leading dimension (K or N) that is not a multiple of " +
         std::to_string(library.misaligned_gemm_aligned_bytes) +
         " bytes: the library runs such GEMMs on its older narrow-load kernels, forecast at the "
         "slowdown measured on the H200 (at least " +
         multiples +
         "; docs/fp16-model.md, 'Misaligned GEMMs'; other GPUs assumed alike). "
         "Padding the dimension (a vocabulary to a multiple of 64, as vLLM and Megatron do) avoids "
         "it.";
}

std::vector<std::string> kernel_caveats(const GpuSpec& gpu, const Kernel& kernel) {
  std::vector<std::string> c;
  const LibraryProfile& library = library_profile_for(gpu);
  const std::int64_t vec = library.layernorm_vector_elements;
  if (kernel.op == Op::ln && vec > 1 && kernel.dims[1] % vec != 0)
    c.push_back("A layer norm row of " + std::to_string(kernel.dims[1]) +
                " elements is not a multiple of " + std::to_string(vec) +
                ": PyTorch then runs its two-kernel fallback (row moments, then the "
                "normalisation) instead of the vectorized kernel every training row ran, so "
                "expect it slower than forecast (on the H200 measured here, such rows of 0.1 ms "
                "and longer were forecast 31% too fast; docs/kernel-model.md).");
  const double gb = kernel_bytes(kernel) / 1e9, capacity_gb = device_memory_bytes(gpu) / 1e9;
  if (gb > capacity_gb)
    c.push_back("This kernel's operands and result (" + number(gb) + " GB) do not fit in " +
                gpu.name + "'s " + number(capacity_gb) +
                " GB of memory (as its driver reports it): it cannot run as one kernel there, so "
                "the figure is a bound, not a time.");
  return c;
}

// How the one mixture of experts measured came out (tests/switch_router_test.cpp holds every
// one of its runs to this range, so the sentence stays true of the forecast).
constexpr const char* kMixturesMeasured =
    " The one mixture of experts measured, the Switch Transformer in eager PyTorch on an H200, is "
    "forecast too fast in all six of its runs, by 14 to 29 % "
    "(data/measured/h200/fp32-seed2-switch): read mixture-of-experts forecasts as optimistic.";

namespace {

// How PyTorch eager runs a top-k mixture's experts under the config's transformers release.
std::string experts_implementation_caveat(const ModelConfig& model) {
  if (traits(model).experts == ExpertForm::llama4)
    return " In PyTorch eager, Llama 4's experts run every expert on every token (the tokens "
           "repeated per expert, two torch.bmm over the stacked weights; transformers 4 and 5 "
           "alike), so routing shapes the optimised engine's expert GEMMs only.";
  if (model.transformers_major < 5) return "";
  if (model.experts_implementation == ExpertsImplementation::eager)
    return " In PyTorch eager, transformers 5's experts run as experts_implementation=\"eager\" "
           "asks (a loop over experts that waits for the host; docs/models.md).";
  std::string caps;
  for (const int c : cuda_library_profile().grouped_mm_bf16_kernel_capabilities)
    caps += (caps.empty() ? "" : " and ") + compute_capability_name(c);
  return " In PyTorch eager, transformers 5's default experts (grouped_mm): the token-expert pairs "
         "sorted by expert, each projection one torch._grouped_mm over the active experts, which "
         "PyTorch runs as one grouped GEMM kernel on NVIDIA compute capability " +
         caps +
         " in pure BF16, and elsewhere (other GPUs, FP16, FP32, autocast over FP32 weights) as its "
         "fallback, a host synchronisation and a GEMM per expert; read from the libraries' code, "
         "no such run was measured (docs/models.md).";
}

}  // namespace

std::vector<std::string> workload_caveats(const ModelConfig& model, const Workload& w) {
  std::vector<std::string> c;
  const std::int64_t tokens = std::max(w.query_len, w.context_len);
  if (model.max_context > 0 && tokens > model.max_context)
    c.push_back("The sequence (" + std::to_string(tokens) + " tokens) is longer than " +
                model.name + " was built for (" + std::to_string(model.max_context) +
                " positions): the forecast is the cost of running it, though the model's "
                "outputs past its limit are not meaningful" +
                (model.max_positions > 0 ? " (its position table has no rows for them)" : "") +
                ".");
  const Routing routing = traits(model).routing;
  if (top_k_routing(routing))
    c.push_back("Experts: uniform routing is assumed (each token's top-" +
                std::to_string(model.experts_per_token) + " of the " +
                std::to_string(model.num_experts) +
                " experts drawn uniformly, independently of the other tokens': T tokens reach " +
                std::to_string(model.num_experts) + " x (1 - (1 - " +
                std::to_string(model.experts_per_token) + "/" + std::to_string(model.num_experts) +
                ")^T) experts on average, which share the assignments evenly); a real router is "
                "uneven, reaching fewer experts in a small batch, and the busiest expert's GEMMs "
                "then take longer. Every expert's weights are resident. No top-k mixture's run "
                "was measured." +
                kMixturesMeasured + experts_implementation_caveat(model));
  if (routing == Routing::top1_capacity && model.expert_capacity > 0) {
    const std::string experts = std::to_string(model.num_experts);
    if (model.transformers_major >= 5)
      c.push_back(
          "Experts: as transformers 5 runs them, every token reaches its expert (the "
          "router's capacity of " +
          std::to_string(model.expert_capacity) +
          " binds nothing once the tokens are flattened), the experts the tokens reach (each "
          "token's drawn uniformly from the " +
          experts +
          ") sharing them evenly; each layer's expert loop waits for the host once and twice "
          "per expert reached, up to " +
          std::to_string(1 + 2 * model.num_experts) +
          " times (nonzero, .item()) (docs/model-forecast.md)." + kMixturesMeasured);
    else
      c.push_back("Experts: each of the " + experts + " experts runs on a buffer of " +
                  std::to_string(model.expert_capacity) +
                  " tokens per sequence (its capacity, which the router of transformers 4 "
                  "enforces); transformers 5's router (the version the H200 was measured with "
                  "here; a config's \"tilecast_transformers_version\" selects it) does not "
                  "enforce it, so every token reaches its expert and longer sequences take "
                  "longer than forecast (docs/model-forecast.md)." +
                  kMixturesMeasured);
  }
  if (model.kv_lora_rank > 0)
    c.push_back(
        "Multi-head latent attention: the optimised engine caches each token's " +
        std::to_string(model.kv_lora_rank) + "-feature latent and " +
        std::to_string(model.qk_rope_head_dim) +
        "-feature rotary key (every tensor-parallel GPU all of it), a prefill up-projects the "
        "latent of the keys it reads and a decode absorbs the up-projections (vLLM's MLA); eager "
        "follows transformers' DeepseekV3Attention, which caches every head's key and value. No "
        "latent-attention kernel was measured: its attention is forecast from its FLOPs and bytes "
        "like any fused attention. The router's sigmoid scores and group-limited top-k are "
        "forecast as a softmax top-k, and the multi-token-prediction layer is not run.");
  if (!model.language_model_of.empty())
    c.push_back("Language model only: the config is a vision-language model's (" +
                model.language_model_of +
                "); its text_config is forecast, with text tokens only: the vision encoder and "
                "the image tokens it adds are not.");
  const std::int64_t sliding = sliding_layer_count(model);
  if (sliding > 0 && traits(model).sliding == Sliding::chunked)
    c.push_back("Chunked local attention: " + std::to_string(sliding) + " of the " +
                std::to_string(model.num_layers) + " layers attend within chunks of " +
                std::to_string(model.sliding_window) +
                " tokens (a query reads the keys from its chunk's start), the other " +
                std::to_string(model.num_layers - sliding) +
                " globally without positions (NoPE). The optimised engine's passes count each "
                "chunk's keys only; the serving simulator and the KV cache count a chunk as a "
                "sliding window of as many tokens (the same within a context's first chunk, up "
                "to twice the keys past it); eager decodes against transformers' cache of the "
                "last chunk's worth of tokens and computes the full masked scores in prefill and "
                "training.");
  else if (sliding > 0)
    c.push_back("Sliding window: " + std::to_string(sliding) + " of the " +
                std::to_string(model.num_layers) + " layers attend to at most " +
                std::to_string(model.sliding_window) +
                " keys when decoding and cache at most that many tokens; prefill and training "
                "compute the full masked scores (eager) or the window's band (fused).");
  return c;
}

std::vector<std::string> roofline_caveats(DataType dtype,
                                          const std::vector<std::string>& roofline_ops) {
  if (roofline_ops.empty()) return {};
  std::string ops;
  for (const auto& o : roofline_ops) ops += (ops.empty() ? "" : ", ") + o;
  return {"No learned " + std::string(dtype_name(dtype)) + " model covers " + ops +
          ": those kernels are forecast by the roofline (a lower bound)."};
}

// Where every whole-model band comes from, in the caveats that carry one over.
constexpr std::string_view kBandFittedOn =
    "fitted on FP32 forecasts of GPU architectures left out of training";

std::string transferred_band_caveat(DataType dtype) {
  const std::string t(dtype_name(dtype));
  return "80% band: the FP32 whole-model band (" + std::string(kBandFittedOn) +
         ") carried over to " + t + " unchanged, an assumption: too few " + t +
         " whole models were measured to fit one; checked against the H200's BF16 whole models "
         "and published FP16, BF16 and FP8 serving runs (docs/generalization.md, \"Other "
         "precisions\").";
}

std::string multi_gpu_band_caveat(DataType dtype) {
  return "80% band: the single-GPU whole-model band (" + std::string(kBandFittedOn) +
         std::string(dtype == kBandPrecision
                         ? ""
                         : "; carried over to " + std::string(dtype_name(dtype)) + " as well") +
         ") carried over to a multi-GPU step unchanged, an assumption: its collectives, overlap "
         "and pipeline bubble add error no band was fitted for; checked against NeuSight's 4-GPU "
         "A100 training steps (data, tensor and pipeline parallel; docs/parallel.md, \"80% "
         "band\").";
}

std::string megatron_band_caveat() {
  return "No 80% band: the Megatron engine's steps are checked against published Megatron-LM "
         "runs instead (Korthikanti et al. 2022, 8 to 2,240 A100s: per-layer times and "
         "iteration times; `tilecast eval-published`, docs/megatron.md \"Accuracy\"), not "
         "against out-of-architecture residuals. For a GPU generation those runs did not use, "
         "a single-GPU training step's band is the nearest measure of how far off it may be.";
}

std::vector<std::string> precision_caveats(const Workload& w,
                                           const std::vector<std::string>& roofline_ops) {
  if (w.dtype == DataType::fp32) return roofline_caveats(w.dtype, roofline_ops);
  std::vector<std::string> c;
  const std::string t(dtype_name(w.dtype));
  if (w.training() && !w.autocast())
    c.push_back("Precision: " + t + " throughout (model.to(" + t + "), master weights in " + t +
                "): every kernel, gradient and Adam state in " + t +
                ", no casts. Hugging Face's FP32 islands (RMSNorm's and the Llama family's "
                "softmax upcasts) are forecast in " +
                t +
                " here, not in FP32. No optimizer step is modelled (the step ends with the "
                "gradients accumulated), nor a loss scaler (fp16).");
  else if (w.training())
    c.push_back("Precision: " + t +
                " mixed precision (torch.autocast): GEMMs and batched matmuls in " + t +
                " on tensor cores, every other kernel (norms, softmax, element-wise) in FP32, "
                "FP32 master weights; each linear casts its weight and input to " +
                t +
                " and their gradients back (copies). No optimizer step is modelled (the step "
                "ends with the gradients accumulated), nor a loss scaler (fp16).");
  else
    c.push_back("Precision: " + t + " weights and activations; every kernel in " + t + ".");
  for (std::string& r : roofline_caveats(w.dtype, roofline_ops)) c.push_back(std::move(r));
  return c;
}

namespace {

// How far the learned models reach to this GPU: the one decision behind forecast_caveats'
// extrapolation sentences and forecast_footing.
enum class Reach { measured, other_vendor, no_architecture, other_architecture };
struct ReachOf {
  Reach reach = Reach::measured;
  Measured measured;
};
ReachOf reach_of(const GpuSpec& g) {
  ReachOf r;
  r.measured = measured_for(g.vendor);
  const auto& [vendors, by_vendor] = r.measured;
  if (vendors.empty()) return r;
  static const std::set<std::string> none;
  const auto found = by_vendor.find(g.vendor);
  const std::set<std::string>& architectures = found != by_vendor.end() ? found->second : none;
  if (!g.vendor.empty() && !vendors.count(g.vendor))
    r.reach = Reach::other_vendor;
  else if (g.architecture.empty())
    r.reach = Reach::no_architecture;
  else if (!architectures.count(g.architecture))
    r.reach = Reach::other_architecture;
  return r;
}

constexpr EnumName<Footing> kFootings[] = {{"roofline", Footing::roofline},
                                           {"transferred", Footing::transferred},
                                           {"partly_roofline", Footing::partly_roofline},
                                           {"learned", Footing::learned}};

}  // namespace

std::string_view footing_name(Footing f) { return enum_name(EnumNames<Footing>(kFootings), f); }

Footing forecast_footing(const GpuSpec& gpu, Predictor predictor, DataType dtype,
                         bool roofline_fallbacks, const std::vector<std::string>* transfers_used) {
  if (predictor == Predictor::roofline) return Footing::roofline;
  if (reach_of(described(gpu)).reach != Reach::measured) return Footing::transferred;
  if (transfers_used) {
    if (!transfers_used->empty()) return Footing::transferred;
  } else {
    for (DataType t : std::set<DataType>{dtype, activation_dtype(dtype)})
      if (!transfers_to(described(gpu).vendor, t).empty()) return Footing::transferred;
  }
  return roofline_fallbacks ? Footing::partly_roofline : Footing::learned;
}

std::vector<std::string> forecast_caveats(const GpuSpec& gpu, Predictor predictor, DataType dtype,
                                          const std::vector<std::string>* transfers_used) {
  std::vector<std::string> caveats = gpu_spec_warnings(gpu);
  if (predictor != Predictor::tilecast) return caveats;
  for (std::string& t : transfer_caveats(gpu, dtype, transfers_used))
    caveats.push_back(std::move(t));
  const GpuSpec& g = described(gpu);
  const ReachOf reach = reach_of(g);
  const auto& [vendors, by_vendor] = reach.measured;
  if (vendors.empty()) return caveats;
  // The architectures measured for the GPU's vendor's models (NVIDIA and AMD are trained apart).
  static const std::set<std::string> none;
  const auto found = by_vendor.find(g.vendor);
  const std::set<std::string>& architectures = found != by_vendor.end() ? found->second : none;
  if (reach.reach == Reach::other_vendor)
    caveats.push_back("The learned kernel models were trained on " + joined(vendors) +
                      " GPUs only; for " + g.name + " this forecast is an extrapolation.");
  else if (reach.reach == Reach::no_architecture)
    caveats.push_back(g.name +
                      " names no architecture, so whether a training GPU shares it is unknown; "
                      "treat the forecast as an extrapolation (the models were trained on " +
                      joined(architectures) + " GPUs).");
  else if (reach.reach == Reach::other_architecture && g.vendor == "AMD")
    caveats.push_back("No " + g.architecture + " GPU was measured: the AMD models learned from " +
                      joined(architectures) + " GPUs (MI100 and MI210), so for " + g.name +
                      " the forecast is an extrapolation from older CDNA generations (its matrix "
                      "cores, clocks and Infinity Cache were never measured).");
  else if (reach.reach == Reach::other_architecture)
    caveats.push_back("No " + g.architecture + " GPU was measured for training (only " +
                      joined(architectures) +
                      "); forecasts for an unmeasured architecture are less certain, softmax "
                      "and layer norm most of all." +
                      (dtype == DataType::fp32 ? tile_source(g) : std::string()));
  if (std::string c = matrix_clock_caveat(g, dtype); !c.empty()) caveats.push_back(std::move(c));
  if (std::string c = fp32_accumulate_caveat(g, dtype); !c.empty()) caveats.push_back(std::move(c));
  Kernel sgemm;
  sgemm.op = Op::linear;
  if (g.vendor == "NVIDIA" && dtype == DataType::fp32) {
    const double ceiling = fp32_issue_ceiling(g, sgemm, library_profile_for(g));
    if (ceiling < 1)
      caveats.push_back(
          "FP32 GEMMs are held to " + number(100 * ceiling) + "% of " + g.name +
          "'s FP32 peak: its SMs take a warp FMA every clock with no spare issue slot, so an "
          "SGEMM loop's loads cost FMA throughput (no training GPU has this layout; the share "
          "comes from the loop's instruction mix, docs/kernel-model.md).");
  }
  return caveats;
}

}  // namespace tilecast
