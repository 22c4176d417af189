// The single-GPU calls alone (forecastModel as api::forecast_model_one_gpu, which never reaches
// the scale-out code): linked apart at -O0 with function names only to list what those calls
// reach, which scripts/split_wasm.mjs keeps in tilecast_wasm.wasm; the rest of the forecaster
// goes to tilecast_wasm.deferred.wasm (docs/web.md, "The deferred part"). Not shipped.
#include <emscripten/bind.h>

#include "single_gpu_calls.hpp"
#include "tilecast/api.hpp"

EMSCRIPTEN_BINDINGS(tilecast_single) {
  using namespace tilecast;
  wasm::register_single_gpu_calls<&api::forecast_model_one_gpu>();
}
