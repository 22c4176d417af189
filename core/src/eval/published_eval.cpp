// Korthikanti et al. 2022's runs forecast by the megatron engine as the paper ran them
// (docs/megatron.md, "Accuracy"): GPT models (learned positions, GeLU MLP of 4h, LayerNorm,
// dropout 0.1, vocabulary 51,200) on DGX A100 80GB nodes (the catalog's dgx-a100, with as many
// nodes as the run used), Megatron-LM of 2022: fused scale-mask-softmax attention (no
// FlashAttention), FP16 mixed precision (the paper says 16-bit; FP16 and BF16 share the A100's
// 312 TFLOP/s peak), no distributed optimizer. Recomputation, sequence parallelism and the
// interleaved schedule's chunks are read from each row's words.
#include "tilecast/published_eval.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/megatron.hpp"

namespace tilecast {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

long long int_of(const nlohmann::json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || !row[key].is_number_integer() || row[key].get<long long>() < 1)
    throw Error(where + ": field '" + key + "' must be a positive integer");
  return row[key].get<long long>();
}

double measured(const nlohmann::json& row, const char* key) {
  if (!row.contains("measured")) return -1;
  const auto& m = row["measured"];
  return m.contains(key) && m[key].is_number() ? m[key].get<double>() : -1;
}

// "interleaved 1F1B, 3 model chunks per device" / "(m=3)": the chunks; 1 otherwise
int chunks_of(const std::string& schedule) {
  if (schedule.find("interleaved") == std::string::npos) return 1;
  for (const char* key : {"m=", "m = "}) {
    const auto at = schedule.find(key);
    if (at != std::string::npos) {
      const int v = std::atoi(schedule.c_str() + at + std::string(key).size());
      if (v >= 1) return v;
    }
  }
  const auto at = schedule.find(" model chunks");
  if (at != std::string::npos && at > 0 &&
      std::isdigit(static_cast<unsigned char>(schedule[at - 1])))
    return schedule[at - 1] - '0';
  return 1;
}

}  // namespace

PublishedReport evaluate_published(std::string_view json_text, std::string_view origin,
                                   Predictor predictor) {
  const nlohmann::json rows = nlohmann::json::parse(json_text, nullptr, false);
  if (rows.is_discarded() || !rows.is_array())
    throw Error(std::string(origin) + ": not a JSON array of published rows");
  const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
  const SystemSpec& dgx = find_system("dgx-a100");
  PublishedReport rep;
  rep.assumptions = "GPT (learned positions, GeLU 4h MLP, LayerNorm, dropout 0.1) on " + gpu.name +
                    " in " + dgx.id +
                    " nodes; Megatron-LM 2022: fused-softmax attention, FP16 mixed precision, no "
                    "distributed optimizer; engine megatron, predictor " +
                    std::string(predictor_name(predictor));
  double t5_sum = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& row = rows[i];
    const std::string where = std::string(origin) + ": row " + std::to_string(i + 1);
    if (!row.is_object()) throw Error(where + ": not an object");
    PublishedRow r;
    r.table = row.value("table", "");
    r.model = row.value("model", "");
    r.recompute = lower(row.value("recompute", "none"));
    r.schedule = row.value("schedule", "");
    const std::string notes = lower(r.schedule + " " + row.value("notes", ""));
    r.tp = int(int_of(row, "tp", where));
    r.pp = int(int_of(row, "pp", where));
    r.dp = int(int_of(row, "dp", where));
    r.gpus = int(int_of(row, "gpus", where));
    const long long batch = int_of(row, "global_batch", where);
    const long long micro = int_of(row, "micro_batch", where);
    if (batch % (micro * r.dp) != 0)
      throw Error(where + ": global_batch is not dp x micro_batch x micro-batches");
    r.microbatches = int(batch / (micro * r.dp));
    r.virtual_stages = chunks_of(lower(r.schedule));
    r.sequence_parallel = lower(r.schedule).find("sequence parallelism on") != std::string::npos;
    r.overlap_grad_reduce = notes.find("no overlap of gradient") == std::string::npos;
    r.layer_forward_ms = measured(row, "layer_forward_ms");
    r.layer_backward_ms = measured(row, "layer_backward_ms");
    r.iteration_s = measured(row, "iteration_s");
    r.mfu_pct = measured(row, "mfu_pct");

    nlohmann::json cfg = {{"architectures", {"GPT2LMHeadModel"}},
                          {"model_type", "gpt2"},
                          {"tilecast_name", r.model},
                          {"n_embd", int_of(row, "hidden", where)},
                          {"n_layer", int_of(row, "layers", where)},
                          {"n_head", int_of(row, "heads", where)},
                          {"vocab_size", int_of(row, "vocab", where)},
                          {"n_positions", int_of(row, "seq", where)}};
    const ModelConfig model = parse_model_config(cfg.dump(), where);
    Workload w = make_workload(Mode::training, batch, int_of(row, "seq", where));
    w.dtype = DataType::fp16;
    MegatronConfig c;
    c.tp = r.tp;
    c.pp = r.pp;
    c.dp = r.dp;
    c.microbatches = r.microbatches;
    c.virtual_stages = r.virtual_stages;
    c.sequence_parallel = r.sequence_parallel;
    c.recompute = r.recompute.rfind("full", 0) == 0        ? Recompute::full
                  : r.recompute.rfind("selective", 0) == 0 ? Recompute::selective
                                                           : Recompute::none;
    c.attention = AttentionKernel::fused_softmax;
    c.distributed_optimizer = false;
    c.overlap_grad_reduce = r.overlap_grad_reduce;
    if (c.gpus() != r.gpus) throw Error(where + ": gpus is not dp x tp x pp");
    SystemSpec system = dgx;
    system.max_nodes =
        std::max(system.max_nodes, (r.gpus + system.gpus_per_node - 1) / system.gpus_per_node);
    const MegatronForecast f = forecast_megatron(gpu, system, model, w, c, predictor);
    r.f_layer_forward_ms = f.layer_forward_ms;
    r.f_layer_backward_ms = f.layer_backward_ms;
    r.f_iteration_s = f.step_ms / 1e3;
    r.f_mfu_pct = 100 * f.mfu;
    r.f_hfu_pct = 100 * f.hfu;
    r.memory_gb = f.memory.total_gb;
    r.capacity_gb = f.memory.capacity_gb;
    r.fits = f.memory.fits;
    // a row timing one layer (Table 4) did not run the whole model: its memory is shown, not
    // required to fit
    r.layer_benchmark = r.layer_forward_ms > 0 && r.iteration_s < 0 && r.mfu_pct < 0;
    if (!r.layer_benchmark) rep.all_fit = rep.all_fit && r.fits;
    auto err = [](double forecast, double meas) { return 100 * std::abs(forecast / meas - 1); };
    if (r.layer_forward_ms > 0)
      rep.table4_max_abs_error_pct =
          std::max({rep.table4_max_abs_error_pct, err(r.f_layer_forward_ms, r.layer_forward_ms),
                    err(r.f_layer_backward_ms, r.layer_backward_ms)});
    if (r.iteration_s > 0) {
      const double e = err(r.f_iteration_s, r.iteration_s);
      rep.table5_max_abs_error_pct = std::max(rep.table5_max_abs_error_pct, e);
      t5_sum += e;
      ++rep.table5_rows;
    }
    if (r.mfu_pct > 0) {
      rep.mfu_max_abs_error_points =
          std::max(rep.mfu_max_abs_error_points, std::abs(r.f_mfu_pct - r.mfu_pct));
      ++rep.mfu_rows;
    }
    rep.rows.push_back(std::move(r));
  }
  rep.table5_mae_pct = rep.table5_rows > 0 ? t5_sum / rep.table5_rows : 0;
  return rep;
}

std::string published_report_to_json(const PublishedReport& rep) {
  using J = nlohmann::ordered_json;
  J rows = J::array();
  auto opt = [](double v) { return v < 0 ? J() : J(v); };
  for (const auto& r : rep.rows)
    rows.push_back({{"table", r.table},
                    {"model", r.model},
                    {"gpus", r.gpus},
                    {"tp", r.tp},
                    {"pp", r.pp},
                    {"dp", r.dp},
                    {"virtual_stages", r.virtual_stages},
                    {"microbatches", r.microbatches},
                    {"sequence_parallel", r.sequence_parallel},
                    {"recompute", r.recompute},
                    {"layer_forward_ms", opt(r.layer_forward_ms)},
                    {"forecast_layer_forward_ms", r.f_layer_forward_ms},
                    {"layer_backward_ms", opt(r.layer_backward_ms)},
                    {"forecast_layer_backward_ms", r.f_layer_backward_ms},
                    {"iteration_s", opt(r.iteration_s)},
                    {"forecast_iteration_s", r.f_iteration_s},
                    {"mfu_pct", opt(r.mfu_pct)},
                    {"forecast_mfu_pct", r.f_mfu_pct},
                    {"forecast_hfu_pct", r.f_hfu_pct},
                    {"memory_gb", r.memory_gb},
                    {"capacity_gb", r.capacity_gb},
                    {"fits", r.fits},
                    {"layer_benchmark", r.layer_benchmark}});
  J j;
  j["rows"] = rows;
  j["table4_max_abs_error_pct"] = rep.table4_max_abs_error_pct;
  j["table5_max_abs_error_pct"] = rep.table5_max_abs_error_pct;
  j["table5_mae_pct"] = rep.table5_mae_pct;
  j["table5_rows"] = rep.table5_rows;
  j["mfu_max_abs_error_points"] = rep.mfu_max_abs_error_points;
  j["mfu_rows"] = rep.mfu_rows;
  j["all_fit"] = rep.all_fit;
  j["assumptions"] = rep.assumptions;
  return j.dump(2);
}

}  // namespace tilecast
