// The serving simulation's request fields (api::forecast_serving with "qps", "concurrency" or
// "trace"; docs/serving-load.md), shared by the serve and capacity API functions.
#pragma once

#include <nlohmann/json.hpp>

#include "tilecast/serving_load.hpp"

namespace tilecast::detail {

// True when the request asks for a simulation under load.
bool is_load_request(const nlohmann::json& req);

// A static batch's request (not is_load_request) with a field only a simulation reads (requests,
// seed, range_ratio, the SLOs, the scheduler and its limits) is refused, naming the field.
void refuse_load_fields(const nlohmann::json& req, const char* origin);

// The simulation's fields on top of `base` (prompt, output, tp, precision, predictor already
// read): qps | concurrency, requests, seed, trace (CSV or JSON text) and trace_name,
// slo_ttft_ms, slo_tpot_ms, max_batch_tokens, max_seqs, scheduler. `origin` names the request.
LoadRequest load_request_fields(const nlohmann::json& req, const ServingRequest& base,
                                const char* origin);

}  // namespace tilecast::detail
