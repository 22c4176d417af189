// Embind registrations of the single-GPU forecaster (tilecast_single.wasm, the page's first
// module): the calls the landing view makes, forecastModel on one GPU. What it leaves out
// (several GPUs, Megatron, serving, collectives, plans) is not linked, so the first forecast
// downloads less; those calls answer "missing_module": "full" (tilecast.js), and the page then
// loads the full forecaster (bindings.cpp). No forecasting logic lives here.
#include <emscripten/bind.h>

#include "convert.hpp"
#include "tilecast/api.hpp"

EMSCRIPTEN_BINDINGS(tilecast_single) {
  using namespace tilecast;
  emscripten::function("version", &wasm::version);
  emscripten::function("listGpus", &wasm::call_no_arg<&api::list_gpus>);
  emscripten::function("validateGpu", &wasm::call_json<&api::validate_gpu>);
  emscripten::function("forecastKernel", &wasm::call_json<&api::forecast_kernel>);
  emscripten::function("listModels", &wasm::call_no_arg<&api::list_models>);
  emscripten::function("validateModel", &wasm::call_json<&api::validate_model>);
  emscripten::function("forecastModel", &wasm::call_json<&api::forecast_model_one_gpu>);
  emscripten::function("listSystems", &wasm::call_no_arg<&api::list_systems>);
  emscripten::function("validateSystem", &wasm::call_json<&api::validate_system>);
  emscripten::function("loadModel", &wasm::call_json<&api::load_model>);
}
