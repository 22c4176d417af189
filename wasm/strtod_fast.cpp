// strtod for the WebAssembly build (linked with --wrap=strtod): the JSON parser reads every
// embedded weight, spec and config through strtod, and musl's computes in 128-bit long
// double, which wasm32 emulates in software (most of the first forecast's time). Plain
// decimals take the core's exact fast path, the rest the C library's strtod: the same bits
// either way (tests/exact_decimal_test.cpp; web/tests/wasm.test.mjs compares with native).
#include <cstdlib>

#include "tilecast/exact_decimal.hpp"

extern "C" double __real_strtod(const char* text, char** end);

extern "C" double __wrap_strtod(const char* text, char** end) {
  double value;
  if (tilecast::exact_decimal_to_double(text, end, &value)) return value;
  return __real_strtod(text, end);
}
