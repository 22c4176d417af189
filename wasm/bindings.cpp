// Embind registrations only: each name maps to one function of tilecast::api
// through the converters in convert.hpp. No forecasting logic lives here.
#include <emscripten/bind.h>

#include "convert.hpp"
#include "tilecast/api.hpp"

EMSCRIPTEN_BINDINGS(tilecast) {
  using namespace tilecast;
  emscripten::function("version", &wasm::version);
  emscripten::function("listGpus", &wasm::call_no_arg<&api::list_gpus>);
  emscripten::function("validateGpu", &wasm::call_json<&api::validate_gpu>);
  emscripten::function("forecastKernel", &wasm::call_json<&api::forecast_kernel>);
  emscripten::function("listModels", &wasm::call_no_arg<&api::list_models>);
  emscripten::function("validateModel", &wasm::call_json<&api::validate_model>);
  emscripten::function("forecastModel", &wasm::call_json<&api::forecast_model>);
  emscripten::function("listSystems", &wasm::call_no_arg<&api::list_systems>);
  emscripten::function("validateSystem", &wasm::call_json<&api::validate_system>);
  emscripten::function("forecastCollective", &wasm::call_json<&api::forecast_collective>);
  emscripten::function("forecastServing", &wasm::call_json<&api::forecast_serving>);
  emscripten::function("planParallel", &wasm::call_json<&api::plan_parallel>);
  emscripten::function("planCapacity", &wasm::call_json<&api::plan_capacity>);
  emscripten::function("loadModel", &wasm::call_json<&api::load_model>);
}
