// `tilecast serve --qps R | --concurrency C | --trace FILE`: a serving simulation under load
// (docs/serving-load.md), through api::forecast_serving; the text view summarises its JSON.
#include "serve_load.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "answer_text.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

namespace tilecast::cli {
namespace {

void number_flag(const Args& args, nlohmann::json& req, const char* flag, const char* field) {
  if (!args.has(flag)) return;
  const double x = args.real(flag, "");
  // a whole number as an integer, as a JSON caller would write it (errors quote the value)
  if (std::floor(x) == x && std::abs(x) < 1e15)
    req[field] = static_cast<long long>(x);
  else
    req[field] = x;
}

// "a-b", each to 3 significant digits (at least whole numbers)
std::string format_range(double a, double b) {
  char buf[64];
  const auto one = [](double x) {
    char v[32];
    std::snprintf(v, sizeof v, std::abs(x) >= 100 ? "%.0f" : "%.3g", x);
    return std::string(v);
  };
  std::snprintf(buf, sizeof buf, "%s-%s", one(a).c_str(), one(b).c_str());
  return buf;
}

void print_percentiles(const char* what, const nlohmann::ordered_json& p) {
  std::printf("  %-22s p50 %10.2f   p90 %10.2f   p99 %10.2f ms\n", what, p["p50"].get<double>(),
              p["p90"].get<double>(), p["p99"].get<double>());
}

}  // namespace

const std::vector<std::string>& load_arrival_flags() {
  static const std::vector<std::string> flags{"qps", "concurrency", "trace"};
  return flags;
}

const std::vector<std::string>& load_simulation_flags() {
  static const std::vector<std::string> flags{"requests",    "seed",        "range-ratio",
                                              "slo-ttft-ms", "slo-tpot-ms", "max-batch-tokens",
                                              "max-seqs",    "scheduler",   "batch-limits"};
  return flags;
}

std::vector<std::string> with_flags(std::vector<std::string> flags,
                                    const std::vector<std::string>& more) {
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

bool is_load_run(const Args& args) {
  for (const std::string& f : load_arrival_flags())
    if (args.has(f)) return true;
  return false;
}

void refuse_simulation_flags_without_arrivals(const Args& args) {
  std::string given;
  for (const std::string& f : load_simulation_flags())
    if (args.has(f)) given += (given.empty() ? "--" : ", --") + f;
  if (given.empty() || is_load_run(args)) return;
  std::string arrivals;
  const auto& a = load_arrival_flags();
  for (std::size_t i = 0; i < a.size(); ++i)
    arrivals += (i == 0 ? "--" : i + 1 == a.size() ? " or --" : ", --") + a[i];
  throw Error(given + " shape" + (given.find(',') == std::string::npos ? "s" : "") +
              " a simulated request stream; give one of " + arrivals +
              " to simulate one (without them: a static batch)");
}

void add_load_fields(const Args& args, nlohmann::json& req) {
  constexpr std::int64_t kMax = 1000000;
  number_flag(args, req, "qps", "qps");
  if (args.has("concurrency")) req["concurrency"] = args.integer("concurrency", 1, 1, kMax);
  if (args.has("requests")) req["requests"] = args.integer("requests", 1, 1, kMax);
  if (args.has("seed")) req["seed"] = args.integer("seed", 0, 0, std::int64_t{9007199254740991});
  number_flag(args, req, "range-ratio", "range_ratio");
  if (args.has("trace")) {
    const std::string path = args.get("trace");
    reject_directory("--trace", path);
    req["trace"] = read_text_file(path);
    req["trace_name"] = path;
  }
  number_flag(args, req, "slo-ttft-ms", "slo_ttft_ms");
  number_flag(args, req, "slo-tpot-ms", "slo_tpot_ms");
  if (args.has("max-batch-tokens"))
    req["max_batch_tokens"] = args.integer("max-batch-tokens", 8192, 1, 1 << 20);
  if (args.has("max-seqs")) req["max_seqs"] = args.integer("max-seqs", 256, 1, 65536);
  if (args.has("scheduler")) req["scheduler"] = args.get("scheduler");
  if (args.has("batch-limits")) req["batch_limits"] = args.get("batch-limits");
}

void print_load_run(const nlohmann::ordered_json& f) {
  std::printf("%s on %s%s: %s, %s scheduler, %lld requests (%s)\n",
              f["model"]["name"].get<std::string>().c_str(),
              f["gpu"]["name"].get<std::string>().c_str(),
              f["tp"].get<int>() > 1
                  ? (" x" + std::to_string(f["tp"].get<int>()) + " (tensor parallel)").c_str()
              : f.contains("ep") ? (" x" + std::to_string(f["ep"].get<int>()) +
                                    " (expert parallel, attention data parallel)")
                                       .c_str()
                                 : "",
              f["precision"].get<std::string>().c_str(), f["scheduler"].get<std::string>().c_str(),
              static_cast<long long>(f["requests"].get<std::int64_t>()),
              f["arrivals"].get<std::string>().c_str());
  print_percentiles("time to first token", f["ttft_ms"]);
  print_percentiles("time per output token", f["tpot_ms"]);
  print_percentiles("request latency", f["e2e_ms"]);
  std::printf("  throughput             %10.1f output tokens/s, %.3f requests/s\n",
              f["output_tokens_per_s"].get<double>(), f["requests_per_s"].get<double>());
  if (const auto& b = f["band"]; !b.is_null()) {
    const auto r = [](const nlohmann::ordered_json& x) {
      return format_range(x[0].get<double>(), x[1].get<double>());
    };
    std::printf(
        "  80%% band               TTFT p50 %s, p99 %s ms; TPOT p50 %s ms; %s output tokens/s "
        "(every step x%.2f-%.2f)\n",
        r(b["ttft_ms"]["p50"]).c_str(), r(b["ttft_ms"]["p99"]).c_str(),
        r(b["tpot_ms"]["p50"]).c_str(), r(b["output_tokens_per_s"]).c_str(),
        b["step_low"].get<double>(), b["step_high"].get<double>());
  }
  print_cost(f);
  if (f.contains("slo"))
    std::printf("  SLO met by             %10.1f %% of requests (goodput %.3f requests/s)\n",
                100 * f["slo"]["attainment"].get<double>(),
                f["slo"]["goodput_requests_per_s"].get<double>());
  std::printf("  engine steps %lld, mean batch %.1f sequences / %.1f tokens, preemptions %lld\n",
              static_cast<long long>(f["steps"].get<std::int64_t>()),
              f["mean_batch_seqs"].get<double>(), f["mean_batch_tokens"].get<double>(),
              static_cast<long long>(f["preemptions"].get<std::int64_t>()));
  std::printf("  KV cache %lld blocks, peak use %.1f %%\n",
              static_cast<long long>(f["kv_blocks"].get<std::int64_t>()),
              100 * f["kv_peak_fraction"].get<double>());
  for (const auto& c : f["caveats"]) std::printf("\nnote: %s\n", c.get<std::string>().c_str());
}

}  // namespace tilecast::cli
