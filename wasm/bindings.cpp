// Embind registrations only: each name maps to one function of tilecast::api
// through the converters in convert.hpp. No forecasting logic lives here.
#include <emscripten/bind.h>

#include "convert.hpp"
#include "single_gpu_calls.hpp"
#include "tilecast/api.hpp"

EMSCRIPTEN_BINDINGS(tilecast) {
  using namespace tilecast;
  wasm::register_single_gpu_calls<&api::forecast_model>();
  emscripten::function("forecastCollective", &wasm::call_json<&api::forecast_collective>);
  emscripten::function("forecastServing", &wasm::call_json<&api::forecast_serving>);
  emscripten::function("planParallel", &wasm::call_json<&api::plan_parallel>);
  emscripten::function("planCapacity", &wasm::call_json<&api::plan_capacity>);
}
