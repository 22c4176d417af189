#include "convert.hpp"

#include <exception>
#include <new>

#include "tilecast/error.hpp"
#include "tilecast/model_not_loaded.hpp"
#include "tilecast/version.hpp"

namespace tilecast::wasm {
namespace {

emscripten::val ok(const std::string& json_text) {
  emscripten::val result = emscripten::val::object();
  result.set("ok", true);
  result.set("json", json_text);
  return result;
}

// `missing_model`: the learned model the call needs and the build does not embed (the caller
// loads it, loadModel, and asks again); empty for every other error.
emscripten::val failed(const std::string& message, const std::string& missing_model = "") {
  emscripten::val result = emscripten::val::object();
  result.set("ok", false);
  result.set("error", message);
  if (!missing_model.empty()) result.set("missing_model", missing_model);
  return result;
}

template <typename Call>
emscripten::val guarded(Call&& call) {
  // The message is copied out of the exception before the JS object is built,
  // so nothing thrown while building the envelope escapes either.
  std::string message, missing_model;
  try {
    return ok(call());
  } catch (const tilecast::ModelNotLoaded& e) {
    message = e.what();
    missing_model = e.model_id();
  } catch (const tilecast::Error& e) {
    message = e.what();
  } catch (const std::bad_alloc&) {
    message = "out of memory while computing the forecast";
  } catch (const std::exception& e) {
    message = std::string("internal error: ") + e.what();
  } catch (...) {
    message = "internal error";
  }
  return failed(message, missing_model);
}

}  // namespace

emscripten::val envelope(ApiNoArg fn) {
  return guarded([&] { return fn(); });
}

emscripten::val envelope(ApiJsonArg fn, const std::string& json_text) {
  return guarded([&] { return fn(json_text); });
}

std::string version() { return std::string(tilecast::kVersion); }

}  // namespace tilecast::wasm
