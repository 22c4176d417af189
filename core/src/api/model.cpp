// JSON API for whole-model forecasts: the zoo, config validation, forecasts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/megatron_request.hpp"
#include "api/request.hpp"
#include "common/checked.hpp"
#include "common/json_fields.hpp"
#include "forecast/model_json.hpp"
#include "forecast/operator_bounds.hpp"
#include "forecast/work_budget.hpp"
#include "model/architectures.hpp"
#include "parallel/parallel.hpp"
#include "serve/memory.hpp"
#include "tilecast/api.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

namespace tilecast::api {
namespace {

constexpr const char* kModelOrigin = "model request";
constexpr const char* kTrainedTokens = "tokens trained (batch x seq per step)";

nlohmann::ordered_json model_summary(const ModelConfig& m) {
  nlohmann::ordered_json j;
  j["id"] = m.id;
  j["name"] = m.name;
  j["architecture"] = std::string(architecture_name(m.architecture));
  j["model_type"] = m.model_type;
  j["family"] = std::string(traits(m).family);
  j["layers"] = m.num_layers + m.num_decoder_layers;
  j["hidden_size"] = m.hidden_size;
  j["params_b"] = m.params() / 1e9;
  j["source"] = m.source;
  return j;
}

// The multi-GPU fields of a forecast_model request; none given: the single-GPU forecast.
constexpr const char* kParallelFields[] = {"gpus",         "dp",    "tp",        "pp",
                                           "microbatches", "zero",  "recompute", "schedule",
                                           "bucket_mb",    "system"};

bool wants_parallel(const nlohmann::json& req) {
  for (const char* f : kParallelFields)
    if (detail::has_field(req, f)) return true;
  return false;
}

// dp x tp x pp from the fields given: missing dp is what gpus leaves; gpus must be the product.
// The products are taken in 64 bits (each size is at most 65536, so they cannot wrap).
ParallelConfig request_parallel(const nlohmann::json& req) {
  ParallelConfig c;
  auto opt_int = [&](const char* name, int fallback) {
    return detail::has_field(req, name)
               ? int(detail::integer_field(req, name, kModelOrigin, 1, 65536))
               : fallback;
  };
  c.tp = opt_int("tp", 1);
  c.pp = opt_int("pp", 1);
  const bool has_gpus = detail::has_field(req, "gpus");
  const std::int64_t gpus = opt_int("gpus", 0);
  const std::int64_t tp_pp = detail::checked_mul(c.tp, c.pp, "tp x pp");
  if (detail::has_field(req, "dp"))
    c.dp = opt_int("dp", 1);
  else if (has_gpus) {
    if (gpus % tp_pp != 0)
      throw Error("model request: gpus " + std::to_string(gpus) +
                  " is not a multiple of tp x pp = " + std::to_string(tp_pp));
    c.dp = int(gpus / tp_pp);
  }
  const std::int64_t product = c.gpus();
  if (has_gpus && product != gpus)
    throw Error("model request: dp x tp x pp = " + std::to_string(c.dp) + " x " +
                std::to_string(c.tp) + " x " + std::to_string(c.pp) + " = " +
                std::to_string(product) + ", not gpus " + std::to_string(gpus));
  if (product > 65536)
    throw Error("model request: dp x tp x pp = " + std::to_string(c.dp) + " x " +
                std::to_string(c.tp) + " x " + std::to_string(c.pp) + " = " +
                std::to_string(product) + " GPUs; at most 65536");
  c.microbatches = opt_int("microbatches", 1);
  if (detail::has_field(req, "zero"))
    c.zero = int(detail::integer_field(req, "zero", kModelOrigin, 0, 3));
  c.recompute =
      detail::word_field(req, "recompute", kModelOrigin, Recompute::none, parse_recompute);
  c.schedule = detail::word_field(req, "schedule", kModelOrigin, PipelineSchedule::one_f_one_b,
                                  parse_schedule);
  if (detail::has_field(req, "bucket_mb"))
    c.bucket_mb = detail::number_field(req, "bucket_mb", kModelOrigin, 1e-3, 1e6);
  return c;
}

SystemSpec system_for(const nlohmann::json& req, const GpuSpec& gpu, std::int64_t gpus) {
  if (auto s = detail::request_system(req, kModelOrigin)) return *s;
  if (auto s = system_for_gpus(gpu, gpus)) return *s;
  throw Error("model request: " + no_system_for(gpu, gpus) +
              "; give field 'system' (a catalog system's id or a system spec object)");
}

nlohmann::ordered_json pass_memory_json(const detail::PassMemory& p) {
  const ServingMemory& m = p.memory;
  return {{"weights_gb", m.weights_gb},
          {"kv_cache_gb", m.kv_cache_gb},
          {"activations_gb", m.activations_gb},
          {"context_gb", m.context_gb},
          {"total_gb", m.total_gb},
          {"capacity_gb", m.capacity_gb},
          {"fits", m.fits},
          {"max_batch", p.max_batch},
          {"tp_to_fit", p.tp_to_fit}};
}

std::string pass_memory_caveat(const ServingMemory& m) {
  char head[160];
  std::snprintf(head, sizeof head, "memory: the pass needs about %.1f GB of the GPU's %.1f GB",
                m.total_gb, m.capacity_gb);
  return std::string(head) +
         " (weights, KV cache, activations, CUDA context): it does not fit; the kernels are "
         "forecast as if it did";
}

// The largest batch whose training step fits on the one GPU: activations and workspaces grow
// with the batch, the model states and the context do not (parallel/memory.cpp).
std::int64_t training_max_batch(const TrainingMemory& m, std::int64_t batch) {
  const double fixed = m.weights_gb + m.gradients_gb + m.optimizer_gb + m.context_gb;
  const double per_sample = (m.activations_gb + m.workspace_gb) / double(batch);
  if (per_sample <= 0 || fixed >= m.capacity_gb) return 0;
  return std::int64_t(std::min(std::floor((m.capacity_gb - fixed) / per_sample), 2147483648.0));
}

// The request's `finetune` object (absent: full training): method lora | qlora, rank, targets.
Finetune finetune_from_request(const nlohmann::json& req, Mode mode) {
  Finetune f;
  if (!detail::has_field(req, "finetune")) return f;
  constexpr const char* origin = "model request: field 'finetune'";
  const std::string methods = enum_names_of(finetune_method_names(), kFinetuneMethods, ", ");
  const nlohmann::json& o = req["finetune"];
  if (!o.is_object())
    throw Error(std::string(origin) + " must be an object: {\"method\": one of " + methods +
                ", \"rank\": 1 to " + std::to_string(kMaxLoraRank) +
                " (default 16), \"targets\": one of " +
                enum_names_joined(lora_target_names(), ", ") + " (default attention)}");
  if (mode != Mode::training)
    throw Error(std::string(origin) + " (LoRA / QLoRA) applies to mode training only");
  detail::check_known_fields(o, origin, {"method", "rank", "targets"});
  const std::string method = detail::string_field(o, "method", origin);
  const auto m = find_enum(finetune_method_names(), method);
  if (!m || std::find(std::begin(kFinetuneMethods), std::end(kFinetuneMethods), *m) ==
                std::end(kFinetuneMethods))
    throw Error(std::string(origin) + ": field 'method' is '" + method + "'; allowed: " + methods);
  f.method = *m;
  if (detail::has_field(o, "rank"))
    f.rank = detail::integer_field(o, "rank", origin, 1, kMaxLoraRank);
  if (detail::has_field(o, "targets")) {
    f.targets = detail::word_field(o, "targets", origin, f.targets, [](std::string_view word) {
      return parse_enum(lora_target_names(), word, "a LoRA target set");
    });
  }
  return f;
}

// The response's `finetune` object: what trains, what is frozen and what the forecast assumes.
nlohmann::ordered_json finetune_json(const Finetune& f, const OpGraph& graph) {
  double adapters = 0, frozen = 0;
  std::int64_t adapted = 0;  // linears with an adapter (repeats counted)
  for (const auto& s : graph.sections)
    for (const auto& o : s.ops) {
      if (o.phase != Phase::forward) continue;
      if (o.adapter) adapters += o.param_elements * double(s.count);
      if (o.frozen_bytes_per_param > 0) frozen += o.param_elements * double(s.count);
      if (o.adapter && o.name.ends_with(" lora_A")) adapted += s.count;
    }
  nlohmann::ordered_json j;
  j["method"] = std::string(finetune_method_name(f.method));
  j["rank"] = f.rank;
  j["targets"] = std::string(lora_targets_name(f.targets));
  j["adapted_linears"] = adapted;
  j["trainable_params"] = adapters;
  j["frozen_params"] = frozen;
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  a.push_back(
      "LoRA (Hu et al. 2021, arXiv 2106.09685): the base weights are frozen: no weight-gradient "
      "GEMM, gradient or Adam state for them; the input-gradient GEMMs stay. Each adapted linear "
      "adds x A^T (rank r) and B (r x d_out), a scale and an add, with their input- and "
      "weight-gradient GEMMs; adapters hold r x (d_in + d_out) parameters, trained with "
      "gradients and Adam states as any trainable parameter. Activations are kept as in full "
      "training; the optimizer step is not forecast, as in full training");
  a.push_back(
      "frozen weights not stored as NF4 (all under LoRA; embeddings, norms and the LM head under "
      "QLoRA) are held in the compute precision, 2 bytes at fp16/bf16");
  if (f.method == FinetuneMethod::qlora)
    a.push_back(
        "QLoRA (Dettmers et al. 2023, arXiv 2305.14314): the blocks' linear weights are stored "
        "as 4-bit NF4 with double-quantized block scales (64-element blocks: 4.127 bits a "
        "parameter) and dequantized to the compute precision before each forward and backward "
        "GEMM: a memory-bound kernel reading 0.516 bytes and writing the compute type per "
        "parameter; paged optimizers are not modelled");
  a.push_back(
      "model_tflops_per_gpu and mfu keep full training's model FLOPs (forward and backward, 3x the "
      "forward), "
      "more than a fine-tuning step computes");
  j["assumptions"] = std::move(a);
  return j;
}

// A multi-GPU training step (the parallel fields given): parallel_forecast.schema.json.
std::string forecast_parallel_request(const nlohmann::json& req, const GpuSpec& gpu,
                                      const ModelConfig& model, const Workload& w, Engine engine,
                                      Predictor predictor, std::optional<double> price,
                                      double tokens, std::int64_t batch, std::int64_t seq) {
  ParallelConfig c = request_parallel(req);
  c.engine = engine;  // eager or compiled: each rank replays that graph
  const SystemSpec system = system_for(req, gpu, c.gpus());
  const ParallelForecast pf = forecast_parallel(gpu, system, model, w, c, predictor);
  auto pj = detail::parallel_forecast_json(gpu, model, pf);
  if (!price) return pj.dump(2);
  pj["cost"] = detail::cost_json(*price, c.gpus(), pf.tokens_per_s, kTrainedTokens);
  detail::add_training_cost(pj["cost"], *price, c.gpus(), pf.step_ms, double(batch) * double(seq),
                            tokens);
  return pj.dump(2);
}

}  // namespace

std::string list_models() {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& m : model_zoo()) list.push_back(model_summary(m));
  return list.dump();
}

std::string validate_model(std::string_view config_json) {
  const ModelConfig m = parse_model_config(config_json, "model config");
  nlohmann::ordered_json j;
  j["ok"] = true;
  j["architecture"] = std::string(architecture_name(m.architecture));
  j["model_type"] = m.model_type;
  j["name"] = m.name;
  j["layers"] = m.num_layers + m.num_decoder_layers;
  j["hidden_size"] = m.hidden_size;
  j["heads"] = m.num_heads;
  j["kv_heads"] = m.num_kv_heads;
  j["intermediate_size"] = m.intermediate_size;
  j["vocab_size"] = m.vocab_size;
  j["params_b"] = m.params() / 1e9;
  if (!m.language_model_of.empty()) j["language_model_of"] = m.language_model_of;
  return j.dump();
}

std::string forecast_model(std::string_view request_json) {
  const nlohmann::json req = detail::parse_json(request_json, kModelOrigin);
  const GpuSpec gpu = detail::request_gpu(req);
  const ModelConfig model = detail::request_model(req);
  const std::int64_t batch = detail::integer_field(req, "batch", kModelOrigin, 1, 1LL << 31);
  const std::int64_t seq = detail::integer_field(req, "seq", kModelOrigin, 1, 1LL << 31);
  const Mode mode = detail::word_field(req, "mode", kModelOrigin, Mode::inference, parse_mode);
  std::int64_t cache = 0;
  if (detail::has_field(req, "context")) {
    if (mode != Mode::decode)
      throw Error("model request: field 'context' (the cache length) applies to mode decode only");
    cache = detail::integer_field(req, "context", kModelOrigin, 1, 1LL << 31);
  }
  const Finetune finetune = finetune_from_request(req, mode);
  if (finetune.frozen_base() && wants_parallel(req))
    throw Error(
        "model request: field 'finetune' (LoRA / QLoRA) is forecast on one GPU: drop the "
        "parallel fields (gpus, dp, tp, pp, ...)");
  if (detail::string_field(req, "engine", kModelOrigin, false) == kMegatronEngine) {
    if (detail::has_field(req, "master_weights"))
      throw Error("model request: field 'master_weights' applies to engines " +
                  enum_names_of(engine_names(), kModelEngines, ", ") +
                  "; megatron keeps FP32 master weights (its distributed optimizer)");
    if (finetune.frozen_base())
      throw Error("model request: field 'finetune' (LoRA / QLoRA) applies to engines " +
                  enum_names_of(engine_names(), kModelEngines, ", ") + ", not megatron");
    return detail::forecast_megatron_request(req, gpu, model, mode, batch, seq);
  }
  Workload w = make_workload(mode, batch, seq, cache);
  w.finetune = finetune;
  w.dtype = detail::request_precision(req, gpu, kModelOrigin);
  if (detail::has_field(req, "master_weights")) {
    w.master_weights = detail::word_field(req, "master_weights", kModelOrigin, MasterWeights::fp32,
                                          parse_master_weights);
    if (w.master_weights == MasterWeights::half) {
      if (mode != Mode::training || w.dtype == DataType::fp32)
        throw Error(
            "model request: field 'master_weights' 'half' (a pure half-precision training step) "
            "applies to mode training at precision fp16 or bf16");
      if (finetune.frozen_base() || wants_parallel(req))
        throw Error(
            "model request: field 'master_weights' 'half' is forecast for full training on one "
            "GPU: drop the finetune and parallel fields (gpus, dp, tp, pp, ...)");
    }
  }
  const std::string pname = detail::string_field(req, "predictor", kModelOrigin, false);
  const Predictor predictor = pname.empty() ? Predictor::tilecast : parse_predictor(pname);
  const Engine engine =
      detail::word_field(req, "engine", kModelOrigin, Engine::eager, parse_engine);
  if (engine == Engine::fused)
    throw Error(
        "model request: field 'engine': 'fused' is the serving engine (forecast_serving, "
        "`tilecast serve`); allowed here: " +
        enum_names_of(engine_names(), kModelEngines, ", "));
  const std::optional<double> price = detail::request_price(req, kModelOrigin);
  double tokens = 0;  // training: the run's tokens, for its cost
  if (detail::has_field(req, "tokens")) {
    if (mode != Mode::training)
      throw Error(
          "model request: field 'tokens' (the tokens to train on) applies to mode training");
    tokens = detail::number_field(req, "tokens", kModelOrigin, 1, 1e18);
  }
  if (wants_parallel(req))
    return forecast_parallel_request(req, gpu, model, w, engine, predictor, price, tokens, batch,
                                     seq);
  const OpGraph graph = build_gpu_graph(gpu, model, w, engine);
  // the forecast and, for the learned predictor, its roofline beside it
  detail::require_within_budget(
      detail::replay_steps(graph) * (predictor == Predictor::roofline ? 1 : 2), kModelOrigin,
      "the model's layers or experts");
  detail::ChargedMs charged;  // each op's time, for the bound analysis
  ModelForecast f = detail::forecast_graph_charged(gpu, graph, w, predictor, charged);
  f.engine = engine;
  const double roof = predictor == Predictor::roofline
                          ? f.latency_ms
                          : forecast_graph(gpu, graph, w, Predictor::roofline).latency_ms;
  auto j = detail::model_forecast_json(gpu, model, f, roof);
  j["operators"] =
      detail::operators_json(detail::operator_bounds(gpu, graph, charged), f.latency_ms);
  if (price) {
    // the tokens tokens_per_s counts, less its "per second"
    std::string counted = j["workload"]["tokens_per_s_counts"];
    if (const auto at = counted.find(" per second"); at != std::string::npos) counted.erase(at, 11);
    j["cost"] = detail::cost_json(*price, 1, f.tokens_per_s, counted.c_str());
    if (w.training())
      detail::add_training_cost(j["cost"], *price, 1, f.latency_ms, double(batch) * double(seq),
                                tokens);
  }
  if (!w.training()) {
    // a pass: weights, KV cache, activations and context on the one GPU, and what would fit
    const detail::PassMemory p = detail::pass_memory(gpu, model, w, engine);
    j["memory"] = pass_memory_json(p);
    if (!p.memory.fits) j["caveats"].push_back(pass_memory_caveat(p.memory));
    return j.dump(2);
  }
  // a training step: memory on the one GPU (Adam's states included) and what pressure means
  const TrainingMemory m = training_memory(gpu, graph, w.dtype, w.master_weights);
  j["memory"] = detail::memory_json(m);
  j["memory"]["max_batch"] = training_max_batch(m, batch);
  if (finetune.frozen_base()) j["finetune"] = finetune_json(finetune, graph);
  for (std::string& c : memory_caveats(m)) j["caveats"].push_back(std::move(c));
  return j.dump(2);
}

}  // namespace tilecast::api
