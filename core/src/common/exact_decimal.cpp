#include "tilecast/exact_decimal.hpp"

#include <cstdint>

namespace tilecast {
namespace {

constexpr int kMaxDigits = 15;  // 10^15 < 2^53: every such integer is an exact double
constexpr int kMaxPow10 = 22;   // 10^22 is the largest power of ten that is an exact double
constexpr double kPow10[kMaxPow10 + 1] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                          1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                          1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool exact_decimal_to_double(const char* text, char** end, double* value) {
  const char* p = text;
  bool negative = false;
  if (*p == '-' || *p == '+') negative = *p++ == '-';
  std::uint64_t mantissa = 0;
  int digits = 0;  // significant digits in the mantissa (leading zeros skipped)
  int scale = 0;   // the power of ten the mantissa is multiplied by
  bool any_digit = false;
  const char* int_start = p;
  for (; is_digit(*p); ++p) {
    any_digit = true;
    if (mantissa == 0 && *p == '0') continue;
    if (++digits > kMaxDigits) return false;
    mantissa = mantissa * 10 + std::uint64_t(*p - '0');
  }
  // "0x..." is a hexadecimal float to strtod
  if (p - int_start == 1 && *int_start == '0' && (*p == 'x' || *p == 'X')) return false;
  if (*p == '.') {
    ++p;
    for (; is_digit(*p); ++p) {
      any_digit = true;
      --scale;
      if (mantissa == 0 && *p == '0') continue;
      if (++digits > kMaxDigits) return false;
      mantissa = mantissa * 10 + std::uint64_t(*p - '0');
    }
  }
  if (!any_digit) return false;  // no number, "inf", "nan", or a lone sign or point
  if (*p == 'e' || *p == 'E') {
    const char* q = p + 1;
    bool exp_negative = false;
    if (*q == '-' || *q == '+') exp_negative = *q++ == '-';
    if (is_digit(*q)) {  // otherwise the exponent is not part of the number
      int exponent = 0;
      for (; is_digit(*q); ++q) {
        if (exponent > 1000) return false;
        exponent = exponent * 10 + (*q - '0');
      }
      scale += exp_negative ? -exponent : exponent;
      p = q;
    }
  }
  double v = 0.0;
  if (mantissa != 0) {
    if (scale > kMaxPow10 || scale < -kMaxPow10) return false;
    v = scale >= 0 ? double(mantissa) * kPow10[scale] : double(mantissa) / kPow10[-scale];
  }
  *value = negative ? -v : v;
  if (end) *end = const_cast<char*>(p);
  return true;
}

}  // namespace tilecast
