// Checked arithmetic on sizes that come from requests (GPUs, tokens, elements, bytes): products
// in 64 bits, refused with an Error naming the fields when they overflow or pass a limit, so no
// wrapped value ever reaches a division, an allocation or a loop bound.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "tilecast/error.hpp"

namespace tilecast::detail {

// a x b; throws Error("<what> = a x b overflows ...") when it does not fit in 64 bits.
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error(std::string(what) + " = " + std::to_string(a) + " x " + std::to_string(b) +
                " does not fit in 64 bits");
  return r;
}

// a x b, at most `limit`; the error names the product, its value and the limit.
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what,
                                std::int64_t limit) {
  const std::int64_t r = checked_mul(a, b, what);
  if (r > limit)
    throw Error(std::string(what) + " = " + std::to_string(a) + " x " + std::to_string(b) + " = " +
                std::to_string(r) + "; at most " + std::to_string(limit));
  return r;
}

// `v` as an int, refused (naming `what`) when it does not fit.
inline int checked_int(std::int64_t v, std::string_view what) {
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw Error(std::string(what) + " is " + std::to_string(v) + "; at most " +
                std::to_string(std::numeric_limits<int>::max()));
  return static_cast<int>(v);
}

// n / d for a divisor from input: refused when d is not positive.
inline std::int64_t checked_div(std::int64_t n, std::int64_t d, std::string_view what) {
  if (d <= 0) throw Error(std::string(what) + " is " + std::to_string(d) + "; must be positive");
  return n / d;
}

// floor(v) as a count, within 0 .. cap: NaN and values below 0 are 0 (casting NaN or a value
// past 2^63 to an integer is undefined behaviour).
// a / b rounded up, for positive sizes (a split of a dimension over b GPUs).
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

inline std::int64_t count_of(double v, double cap) {
  if (!(v > 0)) return 0;
  const double f = std::floor(v);
  return static_cast<std::int64_t>(f < cap ? f : cap);
}

}  // namespace tilecast::detail
