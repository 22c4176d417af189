// The serve command's simulation under load (--qps, --concurrency, --trace; serve_load.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "args.hpp"

namespace tilecast::cli {

// The flags that start a simulation (how requests arrive) and those that only shape one: each
// list written once, for the commands' flag lists, the checks and their messages.
const std::vector<std::string>& load_arrival_flags();
const std::vector<std::string>& load_simulation_flags();
// `flags` followed by `more` (a command's own flags and the lists above).
std::vector<std::string> with_flags(std::vector<std::string> flags,
                                    const std::vector<std::string>& more);

bool is_load_run(const Args& args);
// Refuses a simulation flag given without an arrival flag, naming both.
void refuse_simulation_flags_without_arrivals(const Args& args);
// The simulation's flags as API request fields.
void add_load_fields(const Args& args, nlohmann::json& req);
// A loaded run's text view, printed from api::forecast_serving's answer.
void print_load_run(const nlohmann::ordered_json& answer);

}  // namespace tilecast::cli
