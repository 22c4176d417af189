// Decimal text to double without big-number arithmetic, where that is exact: a plain decimal
// of at most 15 significant digits whose power of ten is within +-22 is one IEEE multiply or
// divide of two exact doubles, so the result is the correctly rounded one a strtod returns
// (Clinger's fast path). The WebAssembly build routes strtod through it (wasm/strtod_fast.cpp):
// musl's strtod computes in 128-bit long double, which wasm32 emulates in software.
#pragma once

namespace tilecast {

// The value of the number at the start of `text` and, in *end, where it stops, exactly as
// strtod would; false (nothing written) when the text is not such a number (leading space,
// hex, inf/nan, more digits, a larger exponent): the caller then uses strtod itself.
bool exact_decimal_to_double(const char* text, char** end, double* value);

}  // namespace tilecast
