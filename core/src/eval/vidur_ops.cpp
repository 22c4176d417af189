// The vidur compute layout: header-named columns, one row per (tokens, TP degree) of one model;
// each operator's median becomes one measured kernel at the row's shapes.
#include "tilecast/vidur_ops.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

#include "forecast/predictor.hpp"
#include "forecast/tensor_gemm_predictor.hpp"
#include "kernel/family.hpp"
#include "learned/tile_table.hpp"
#include "learned/weights.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == ',') {
      out.emplace_back(line.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

struct Columns {
  std::map<std::string, std::size_t> at;
  std::size_t need(const std::string& name, const std::string& where) const {
    const auto it = at.find(name);
    if (it == at.end()) throw Error(where + ": no column '" + name + "'");
    return it->second;
  }
};

std::int64_t to_int(const std::string& s, const std::string& where, const std::string& field) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 1 || v > kMaxKernelDim)
    throw Error(where + ": field '" + field + "' is '" + s + "'; expected a positive integer");
  return v;
}

// nullopt for an empty field (an operator the model does not have).
std::optional<double> to_ms(const std::string& s, const std::string& where,
                            const std::string& field) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0 || v > 1e6)
    throw Error(where + ": field '" + field + "' is '" + s + "'; expected a positive time in ms");
  return v;
}

struct Shape {
  std::int64_t T, p, d, heads, kv_heads, f;
  bool gated;
};

Kernel row_kernel(Op op, std::int64_t a, std::int64_t b, DataType dtype) {
  const std::int64_t d2[] = {a, b};
  return make_kernel(op, d2, 2, dtype);
}

Kernel linear(std::int64_t m, std::int64_t n, std::int64_t k, DataType dtype) {
  const std::int64_t d4[] = {1, m, n, k};
  return make_kernel(Op::linear, d4, 4, dtype);
}

Kernel op_kernel(const std::string& op, const Shape& s, DataType dtype) {
  const std::int64_t h = s.d / s.heads;
  if (op == "emb") return row_kernel(parse_op("embedding"), s.T, s.d, dtype);
  if (op == "input_layernorm" || op == "post_attention_layernorm")
    return row_kernel(s.gated ? parse_op("rmsnorm") : Op::ln, s.T, s.d, dtype);
  if (op == "attn_pre_proj") return linear(s.T, s.d, (s.heads + 2 * s.kv_heads) * h / s.p, dtype);
  if (op == "attn_rope")
    return row_kernel(parse_op("rotary"), s.T, (s.heads + s.kv_heads) * h / s.p, dtype);
  if (op == "attn_post_proj") return linear(s.T, s.heads * h / s.p, s.d, dtype);
  if (op == "mlp_up_proj") return linear(s.T, s.d, (s.gated ? 2 * s.f : s.f) / s.p, dtype);
  if (op == "mlp_act")
    return row_kernel(s.gated ? parse_op("silu_mul") : Op::gelu, s.T, s.f / s.p, dtype);
  if (op == "mlp_down_proj") return linear(s.T, s.f / s.p, s.d, dtype);
  return row_kernel(Op::add, s.T, s.d, dtype);  // "add"
}

// The predictor, or a learned one over given weights and/or a given tensor-core GEMM model.
// Weights without a GEMM model forecast GEMMs with the weights' net.
class Forecaster {
 public:
  Forecaster(Predictor predictor, std::string_view weights_json, std::string_view gemm_json)
      : predictor_(predictor) {
    if (predictor != Predictor::tilecast) return;
    if (!weights_json.empty()) {
      static const TileTable no_table;  // tensor-core GEMMs choose their tile by rule
      weights_ = std::make_unique<KernelWeights>(parse_kernel_weights(weights_json, "weights"));
      own_ = std::make_unique<LearnedPredictor>(*weights_, no_table);
    }
    if (!gemm_json.empty())
      gemm_ = make_tensor_gemm_predictor(parse_tensor_gemm_model(gemm_json, "gemm model"));
  }
  KernelForecast operator()(const GpuSpec& gpu, const Kernel& k) const {
    if (gemm_ && family_of(k.op).name == "gemm") return gemm_->forecast(gpu, k);
    // vidur timed each operator alone (CUDA events): no eager launch cost
    return own_ ? own_->forecast(gpu, k) : forecast_kernel(gpu, k, predictor_, Launch::engine);
  }

 private:
  Predictor predictor_;
  std::unique_ptr<KernelWeights> weights_;
  std::unique_ptr<LearnedPredictor> own_;
  std::shared_ptr<const KernelPredictor> gemm_;
};

}  // namespace

const std::vector<std::string>& vidur_op_names() {
  static const std::vector<std::string> names = {
      "emb",         "input_layernorm", "attn_pre_proj",
      "attn_rope",   "attn_post_proj",  "post_attention_layernorm",
      "mlp_up_proj", "mlp_act",         "mlp_down_proj",
      "add"};
  return names;
}

std::vector<VidurOpRow> parse_vidur_mlp_csv(std::string_view text, std::string_view origin,
                                            DataType dtype) {
  const std::string file(origin);
  std::vector<VidurOpRow> out;
  Columns cols;
  std::size_t line_no = 0, pos = 0;
  bool header = true;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line);
    const std::string where = file + ":" + std::to_string(line_no);
    if (header) {
      for (std::size_t i = 0; i < f.size(); ++i) cols.at[f[i]] = i;
      header = false;
      bool any = false;
      for (const std::string& op : vidur_op_names())
        any = any || cols.at.count("time_stats." + op + ".median");
      if (!any) throw Error(where + ": no column time_stats.<op>.median of any operator");
      continue;
    }
    if (f.size() != cols.at.size())
      throw Error(where + ": " + std::to_string(f.size()) + " fields; the header has " +
                  std::to_string(cols.at.size()));
    auto field = [&](const std::string& name) -> const std::string& {
      return f[cols.need(name, where)];
    };
    Shape s;
    s.T = to_int(field("num_tokens"), where, "num_tokens");
    s.p = to_int(field("num_tensor_parallel_workers"), where, "num_tensor_parallel_workers");
    s.d = to_int(field("n_embd"), where, "n_embd");
    s.heads = to_int(field("n_head"), where, "n_head");
    s.kv_heads = to_int(field("n_kv_head"), where, "n_kv_head");
    s.f = to_int(field("n_expanded_embd"), where, "n_expanded_embd");
    const std::string& gated = field("use_gated_mlp");
    if (gated != "True" && gated != "False")
      throw Error(where + ": field 'use_gated_mlp' is '" + gated + "'; expected True or False");
    s.gated = gated == "True";
    if (s.d % s.heads != 0 || s.heads % s.p != 0 || s.kv_heads > s.heads)
      throw Error(where + ": n_embd " + std::to_string(s.d) + " with " + std::to_string(s.heads) +
                  " heads, " + std::to_string(s.kv_heads) + " kv heads and TP " +
                  std::to_string(s.p) + " does not split into whole heads per worker");
    for (const std::string& op : vidur_op_names()) {
      const std::string column = "time_stats." + op + ".median";
      if (!cols.at.count(column)) continue;  // an operator the model does not have
      const std::optional<double> ms = to_ms(field(column), where, column);
      if (!ms) continue;
      VidurOpRow r;
      r.op = op;
      r.tokens = s.T;
      r.tp = s.p;
      r.kernel = op_kernel(op, s, dtype);
      r.measured_ms = *ms;
      r.origin = where;
      out.push_back(std::move(r));
    }
  }
  if (header) throw Error(file + ": empty; expected a header row");
  return out;
}

EvalReport evaluate_vidur_ops(const std::vector<VidurOpRow>& rows, const GpuSpec& gpu,
                              Predictor predictor, std::string_view weights_json,
                              std::string_view gemm_json) {
  const Forecaster forecaster(predictor, weights_json, gemm_json);
  struct Sum {
    std::int64_t n = 0;
    double ours = 0, roof = 0;
  };
  std::map<std::string, Sum> sums;
  Sum all;
  for (const VidurOpRow& r : rows) {
    const KernelForecast f = forecaster(gpu, r.kernel);
    const double ours = std::fabs(f.latency_ms - r.measured_ms) / r.measured_ms;
    const double roof = std::fabs(f.roofline_ms - r.measured_ms) / r.measured_ms;
    for (Sum* t : {&sums[r.op], &all}) {
      t->n += 1;
      t->ours += ours;
      t->roof += roof;
    }
  }
  EvalReport rep;
  for (const std::string& op : vidur_op_names()) {
    const auto it = sums.find(op);
    if (it == sums.end()) continue;
    const Sum& s = it->second;
    rep.groups.push_back(
        {gpu.name, op, s.n, 100.0 * s.ours / double(s.n), 100.0 * s.roof / double(s.n)});
  }
  rep.n = all.n;
  if (all.n > 0) {
    rep.overall_mape_pct = 100.0 * all.ours / double(all.n);
    rep.overall_roofline_mape_pct = 100.0 * all.roof / double(all.n);
  }
  return rep;
}

std::string vidur_rows_csv(const std::vector<VidurOpRow>& rows, const GpuSpec& gpu,
                           Predictor predictor, std::string_view weights_json,
                           std::string_view gemm_json) {
  const Forecaster forecaster(predictor, weights_json, gemm_json);
  std::string out = "origin,op,tokens,tp,kernel,dims,measured_ms,predicted_ms,roofline_ms,tile\n";
  char buf[160];
  for (const VidurOpRow& r : rows) {
    const KernelForecast f = forecaster(gpu, r.kernel);
    std::snprintf(buf, sizeof buf, ",%.17g,%.17g,%.17g,", r.measured_ms, f.latency_ms,
                  f.roofline_ms);
    out += "\"" + r.origin + "\"," + r.op + "," + std::to_string(r.tokens) + "," +
           std::to_string(r.tp) + "," + std::string(op_name(r.kernel.op)) + ",\"" +
           dims_to_string(r.kernel) + "\"" + buf + f.tile + "\n";
  }
  return out;
}

}  // namespace tilecast
