// Pieces of the CLI's text views that several forecast commands print from the API's answer
// (the answer is the one source: the CLI forecasts nothing itself, docs/layout.md).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace tilecast::cli {

// How a forecast command answers, decided here once: with --json (`json`) the API's JSON text
// exactly as the API returned it (what scripts, the page and the WASM tests read), else the text
// view `print` writes from that same answer. Returns the command's exit status.
template <class Print>
int print_answer(bool json, const std::string& answer, Print&& print) {
  if (json) {
    std::printf("%s\n", answer.c_str());
    return 0;
  }
  print(nlohmann::ordered_json::parse(answer));
  return 0;
}

// The response's "cost" (given --price-per-gpu-hour) and a training forecast's MFU, printed
// when present.
void print_cost(const nlohmann::ordered_json& j);
void print_utilization(const nlohmann::ordered_json& j);

// Milliseconds by kind of kernel (`ms_by_kind`: the answer's breakdown object) with their share
// of `total_ms`, under the heading "breakdown" + `where`.
void print_breakdown(const nlohmann::ordered_json& ms_by_kind, double total_ms, const char* where);

// A multi-GPU training forecast's memory per GPU (on the `unit` it names: "stage" or "rank"),
// assumptions and caveats, printed from its JSON (both engines).
void print_training_footer(const nlohmann::ordered_json& j, const char* unit);

}  // namespace tilecast::cli
