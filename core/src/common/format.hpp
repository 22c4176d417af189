// Numbers in messages as `std::ostream << double` writes them (printf's %g at a given number
// of significant digits), without iostreams: a stream pulls the whole locale machinery
// (money, time, wide-character facets: ~22 KB gzipped) into the WASM.
#pragma once

#include <cstdio>
#include <string>

namespace tilecast::detail {

// What an ostream with precision(`digits`) and default float format writes for `v`.
inline std::string format_g(double v, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// `v` written by a printf format that takes one double (e.g. "%.1f").
inline std::string format_with(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace tilecast::detail
