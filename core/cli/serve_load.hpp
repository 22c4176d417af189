// The serve command's simulation under load (--qps, --concurrency, --trace; serve_load.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "args.hpp"

namespace tilecast::cli {

bool is_load_run(const Args& args);
// The simulation's flags as API request fields.
void add_load_fields(const Args& args, nlohmann::json& req);
// Runs api::forecast_serving on `req`; prints its JSON, or a summary.
int print_load_run(const nlohmann::json& req, bool json);

}  // namespace tilecast::cli
