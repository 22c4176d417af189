// The calls of both Embind registrations (bindings.cpp, single_gpu_bindings.cpp): the catalogs,
// the checks, one kernel, a model forecast (`ForecastModel`: api::forecast_model, or its
// one-GPU form) and the on-demand models. Names only; no forecasting logic lives here.
#pragma once

#include <emscripten/bind.h>

#include "convert.hpp"
#include "tilecast/api.hpp"

namespace tilecast::wasm {

template <ApiJsonArg ForecastModel>
void register_single_gpu_calls() {
  emscripten::function("version", &version);
  emscripten::function("listGpus", &call_no_arg<&api::list_gpus>);
  emscripten::function("validateGpu", &call_json<&api::validate_gpu>);
  emscripten::function("forecastKernel", &call_json<&api::forecast_kernel>);
  emscripten::function("listModels", &call_no_arg<&api::list_models>);
  emscripten::function("validateModel", &call_json<&api::validate_model>);
  emscripten::function("forecastModel", &call_json<ForecastModel>);
  emscripten::function("listSystems", &call_no_arg<&api::list_systems>);
  emscripten::function("validateSystem", &call_json<&api::validate_system>);
  emscripten::function("loadModel", &call_json<&api::load_model>);
}

}  // namespace tilecast::wasm
