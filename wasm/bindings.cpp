// Embind registrations only: each name maps to one function of tilecast::api
// through the converters in convert.hpp. No forecasting logic lives here.
#include <emscripten/bind.h>

#include "convert.hpp"
#include "tilecast/api.hpp"

EMSCRIPTEN_BINDINGS(tilecast) {
  using namespace tilecast;
  using namespace tilecast::wasm;
  emscripten::function("version", &version);
  emscripten::function("listGpus", &call_no_arg<&api::list_gpus>);
  emscripten::function("validateGpu", &call_json<&api::validate_gpu>);
  emscripten::function("forecastKernel", &call_json<&api::forecast_kernel>);
  emscripten::function("listModels", &call_no_arg<&api::list_models>);
  emscripten::function("validateModel", &call_json<&api::validate_model>);
  emscripten::function("forecastModel", &call_json<&api::forecast_model>);
  emscripten::function("listSystems", &call_no_arg<&api::list_systems>);
  emscripten::function("validateSystem", &call_json<&api::validate_system>);
  emscripten::function("loadModel", &call_json<&api::load_model>);
  emscripten::function("forecastCollective", &call_json<&api::forecast_collective>);
  emscripten::function("forecastServing", &call_json<&api::forecast_serving>);
  emscripten::function("planParallel", &call_json<&api::plan_parallel>);
  emscripten::function("planCapacity", &call_json<&api::plan_capacity>);
}
