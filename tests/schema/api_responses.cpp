// Answers JSON-API calls read from stdin, one per line ({"call": "forecastModel", "request":
// {...}}), with one line each on stdout: the WASM binding's envelope ({"ok": true, "json":
// RESPONSE} or {"ok": false, "error": MESSAGE}) around the tilecast::api function of that name.
// web/tests/schema_native.mjs feeds it a spread of requests and checks every answer against
// core/schema/ (ctest "response_schemas"); the same calls through the WASM build are checked by
// web/tests/schema_wasm.test.mjs.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

namespace {

using NoArg = std::string (*)();
using JsonArg = std::string (*)(std::string_view);

// The names the WASM binding registers (wasm/bindings.cpp).
const std::map<std::string, NoArg> kNoArg = {{"listGpus", &tilecast::api::list_gpus},
                                             {"listModels", &tilecast::api::list_models},
                                             {"listSystems", &tilecast::api::list_systems}};
const std::map<std::string, JsonArg> kJsonArg = {
    {"validateGpu", &tilecast::api::validate_gpu},
    {"forecastKernel", &tilecast::api::forecast_kernel},
    {"validateModel", &tilecast::api::validate_model},
    {"forecastModel", &tilecast::api::forecast_model},
    {"validateSystem", &tilecast::api::validate_system},
    {"forecastCollective", &tilecast::api::forecast_collective},
    {"forecastServing", &tilecast::api::forecast_serving},
    {"planParallel", &tilecast::api::plan_parallel},
    {"planCapacity", &tilecast::api::plan_capacity},
    {"loadModel", &tilecast::api::load_model}};

nlohmann::json answer(const nlohmann::json& line) {
  const std::string call = line.at("call").get<std::string>();
  std::string text;
  try {
    if (auto n = kNoArg.find(call); n != kNoArg.end()) {
      text = n->second();
    } else if (auto j = kJsonArg.find(call); j != kJsonArg.end()) {
      const nlohmann::json& r = line.at("request");
      text = j->second(r.is_string() ? r.get<std::string>() : r.dump());
    } else {
      return {{"ok", false}, {"error", "api_responses: unknown call '" + call + "'"}};
    }
  } catch (const tilecast::Error& e) {
    return {{"ok", false}, {"error", e.what()}};
  } catch (const std::exception& e) {
    return {{"ok", false}, {"error", std::string("internal error: ") + e.what()}};
  }
  return {{"ok", true}, {"json", text}};
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::cout << answer(nlohmann::json::parse(line)).dump() << '\n';
  }
  return 0;
}
