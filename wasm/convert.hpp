// Converters between the core's JSON-text API and JavaScript, used by bindings.cpp.
//
// Every bound function returns an envelope object instead of throwing across the
// boundary: {ok: true, json: "<result JSON text>"} or {ok: false, error: "<message>"} (with
// "missing_model": ID when the call needs a learned model the build does not embed).
// tilecast.js turns a failed envelope into a JavaScript Error with the same message.
// A C++ exception is always caught here (the build enables exception catching), so
// bad input never aborts the WebAssembly instance.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <string_view>

namespace tilecast::wasm {

using ApiNoArg = std::string (*)();
using ApiJsonArg = std::string (*)(std::string_view);

// Runs `fn` and wraps its JSON text, or the message of whatever it threw.
emscripten::val envelope(ApiNoArg fn);
emscripten::val envelope(ApiJsonArg fn, const std::string& json_text);

// The forecaster's version (tilecast::kVersion), for share links.
std::string version();

// Adapters with the signatures Embind registers: one per API function shape.
template <ApiNoArg Fn>
emscripten::val call_no_arg() {
  return envelope(Fn);
}

template <ApiJsonArg Fn>
emscripten::val call_json(std::string json_text) {
  return envelope(Fn, json_text);
}

}  // namespace tilecast::wasm
