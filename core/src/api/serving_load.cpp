// Reading a serving simulation request (header).
#include "api/serving_load.hpp"

#include "api/request.hpp"
#include "common/json_fields.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {

bool is_load_request(const nlohmann::json& req) {
  return has_field(req, "qps") || has_field(req, "concurrency") || has_field(req, "trace");
}

void refuse_load_fields(const nlohmann::json& req, const char* origin) {
  for (const char* field : {"requests", "seed", "range_ratio", "slo_ttft_ms", "slo_tpot_ms",
                            "max_batch_tokens", "max_seqs", "scheduler", "batch_limits"})
    if (has_field(req, field))
      throw Error(std::string(origin) + ": field '" + field +
                  "' is for a simulation under load: give 'qps', 'concurrency' or 'trace' too");
}

LoadRequest load_request_fields(const nlohmann::json& req, const ServingRequest& base,
                                const char* origin) {
  LoadRequest r;
  r.serving = base;
  const bool qps = has_field(req, "qps"), clients = has_field(req, "concurrency");
  if (qps && clients)
    throw Error(std::string(origin) +
                ": give 'qps' (Poisson arrivals) or 'concurrency' "
                "(closed-loop clients), not both");
  if (has_field(req, "trace")) {
    const std::string name = string_field(req, "trace_name", origin, false);
    auto it = req.find("trace");
    if (!it->is_string())
      throw Error(std::string(origin) + ": field 'trace' must be the trace's text (CSV or JSON)");
    r.trace = parse_trace(it->get<std::string>(), name.empty() ? "trace" : name);
    r.arrivals = Arrivals::trace;
    r.requests = std::int64_t(r.trace.size());
  }
  if (qps) {
    r.arrivals = Arrivals::poisson;
    r.qps = number_field(req, "qps", origin, 1e-6, 1e6);
  }
  if (clients) {
    r.arrivals = Arrivals::closed_loop;
    r.concurrency = integer_field(req, "concurrency", origin, 1, 1000000);
  }
  if (qps || clients) {
    if (!has_field(req, "requests") && r.trace.empty())
      throw Error(std::string(origin) + ": field 'requests' is missing (how many to simulate)");
    if (has_field(req, "requests")) r.requests = integer_field(req, "requests", origin, 1, 1000000);
  }
  if (has_field(req, "range_ratio")) {
    r.range_ratio = number_field(req, "range_ratio", origin, 0, 0.999999);
    if (!r.trace.empty())
      throw Error(std::string(origin) +
                  ": field 'range_ratio' draws lengths around prompt and output; a trace gives "
                  "its own");
  }
  if (has_field(req, "seed"))
    r.seed = std::uint64_t(integer_field(req, "seed", origin, 0, 9007199254740991LL));
  if (has_field(req, "slo_ttft_ms"))
    r.slo_ttft_ms = number_field(req, "slo_ttft_ms", origin, 1e-6, 1e9);
  if (has_field(req, "slo_tpot_ms"))
    r.slo_tpot_ms = number_field(req, "slo_tpot_ms", origin, 1e-6, 1e9);
  if (has_field(req, "max_batch_tokens"))
    r.max_batch_tokens = integer_field(req, "max_batch_tokens", origin, 1, kMaxBatchTokensPerStep);
  if (has_field(req, "max_seqs"))
    r.max_seqs = integer_field(req, "max_seqs", origin, 1, kMaxSeqsPerStep);
  r.scheduler = word_field(req, "scheduler", origin, r.scheduler, parse_scheduler);
  r.batch_limits = word_field(req, "batch_limits", origin, r.batch_limits, parse_batch_limits);
  if (r.batch_limits == BatchLimits::trtllm_bench &&
      (has_field(req, "max_seqs") || has_field(req, "max_batch_tokens")))
    throw Error(std::string(origin) +
                ": batch_limits trtllm-bench chooses max_seqs and max_batch_tokens itself; "
                "give it or them, not both");
  return r;
}

}  // namespace tilecast::detail
