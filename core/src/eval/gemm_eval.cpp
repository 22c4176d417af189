// Published GEMM timings against the kernel forecasts (header).
#include "tilecast/gemm_eval.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "common/json_fields.hpp"
#include "common/median.hpp"
#include "forecast/model_registry.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {
namespace {

constexpr long long kMaxDim = 1 << 20;

}  // namespace

GemmEvalReport evaluate_published_gemms(std::string_view json_text, std::string_view origin) {
  const nlohmann::json j = detail::parse_json(json_text, origin);
  if (!detail::has_field(j, "sources") || !j["sources"].is_object())
    throw Error(std::string(origin) + ": field 'sources' must be an object of sources by id");
  if (!detail::has_field(j, "rows") || !j["rows"].is_array() || j["rows"].empty())
    throw Error(std::string(origin) + ": field 'rows' must be a non-empty list");
  GemmEvalReport rep;
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_group;
  for (const auto& x : j["rows"]) {
    const std::string where = std::string(origin) + ": a row";
    if (!x.is_object()) throw Error(where + " must be an object, got " + x.dump());
    GemmEvalRow r;
    r.id = detail::string_field(x, "id", where);
    const std::string at = std::string(origin) + ": row " + r.id;
    r.source = detail::string_field(x, "source", at);
    if (!j["sources"].contains(r.source))
      throw Error(at + ": field 'source': no source '" + r.source + "' in field 'sources'");
    const GpuSpec& gpu = find_gpu(detail::string_field(x, "gpu", at));
    r.gpu = gpu.id;
    r.precision = detail::string_field(x, "precision", at);
    const DataType dtype = parse_dtype(r.precision);
    r.m = detail::integer_field(x, "m", at, 1, kMaxDim);
    r.n = detail::integer_field(x, "n", at, 1, kMaxDim);
    r.k = detail::integer_field(x, "k", at, 1, kMaxDim);
    const double flops = 2.0 * double(r.m) * double(r.n) * double(r.k);
    const bool has_us = detail::has_field(x, "us"), has_tflops = detail::has_field(x, "tflops");
    if (has_us == has_tflops)
      throw Error(at + ": give the measurement as one of 'us' (microseconds) or 'tflops'");
    r.measured_us = has_us ? detail::positive_field(x, "us", at, 1e9)
                           : flops / (detail::positive_field(x, "tflops", at, 1e5) * 1e6);
    const std::int64_t dims[] = {1, r.m, r.n, r.k};
    const Kernel kernel = make_kernel(Op::linear, dims, 4, dtype);
    r.forecast_us =
        1e3 * forecast_kernel(gpu, kernel, Predictor::tilecast, Launch::engine).latency_ms;
    r.time_multiple = transfer_time_multiple(gpu, kernel);
    r.model = transfer_use_key(gpu, kernel);
    by_group[{gpu.vendor, r.precision}].push_back(rep.rows.size());
    rep.rows.push_back(std::move(r));
  }
  for (const auto& [key, idx] : by_group) {
    GemmEvalGroup g;
    g.vendor = key.first;
    g.precision = key.second;
    g.rows = int(idx.size());
    std::vector<double> ratio, without, with;
    for (std::size_t i : idx) {
      const GemmEvalRow& r = rep.rows[i];
      const double bare_us = r.forecast_us / r.time_multiple;
      ratio.push_back(r.measured_us / bare_us);
      without.push_back(100 * std::abs(bare_us / r.measured_us - 1));
      with.push_back(100 * std::abs(r.forecast_us / r.measured_us - 1));
      g.time_multiple_in_use = r.time_multiple;
    }
    g.time_multiple_measured = std::round(100 * detail::median(ratio)) / 100;
    for (const TransferUse& u : transfers_to(g.vendor, parse_dtype(g.precision)))
      g.carried = g.carried || !u.transfer->calibration.empty();
    g.median_abs_error_pct_without = detail::median(without);
    g.median_abs_error_pct_with = detail::median(with);
    rep.groups.push_back(g);
  }
  return rep;
}

std::string gemm_eval_to_json(const GemmEvalReport& rep) {
  nlohmann::ordered_json out;
  out["rows"] = nlohmann::ordered_json::array();
  for (const GemmEvalRow& r : rep.rows)
    out["rows"].push_back({{"id", r.id},
                           {"source", r.source},
                           {"gpu", r.gpu},
                           {"precision", r.precision},
                           {"m", r.m},
                           {"n", r.n},
                           {"k", r.k},
                           {"measured_us", r.measured_us},
                           {"forecast_us", r.forecast_us},
                           {"time_multiple", r.time_multiple},
                           {"model", r.model}});
  out["groups"] = nlohmann::ordered_json::array();
  for (const GemmEvalGroup& g : rep.groups)
    out["groups"].push_back({{"vendor", g.vendor},
                             {"precision", g.precision},
                             {"rows", g.rows},
                             {"time_multiple_in_use", g.time_multiple_in_use},
                             {"carried", g.carried},
                             {"time_multiple_measured", g.time_multiple_measured},
                             {"median_abs_error_pct_without", g.median_abs_error_pct_without},
                             {"median_abs_error_pct_with", g.median_abs_error_pct_with}});
  return out.dump(2);
}

}  // namespace tilecast
