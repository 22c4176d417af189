// The exact decimal fast path (the WebAssembly build's strtod for plain decimals) gives the
// bits and the end position strtod gives, and declines what it cannot do exactly.
#include "tilecast/exact_decimal.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

using namespace tilecast;

namespace {

std::uint64_t bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// True when the fast path took the text; then it must agree with strtod bit for bit.
bool agrees(const std::string& text) {
  double fast = 12345.0;
  char* fast_end = nullptr;
  const bool taken = exact_decimal_to_double(text.c_str(), &fast_end, &fast);
  if (!taken) return false;
  char* end = nullptr;
  const double ref = std::strtod(text.c_str(), &end);
  INFO("text '", text, "': fast ", fast, ", strtod ", ref);
  CHECK(bits(fast) == bits(ref));
  CHECK(fast_end - text.c_str() == end - text.c_str());
  return true;
}

}  // namespace

TEST_SUITE("exact decimal") {
  TEST_CASE("plain decimals are taken and agree with strtod, ends included") {
    for (const char* t : {"0",
                          "-0",
                          "+0",
                          "0.0",
                          "-0.000",
                          "1",
                          "-1",
                          "12.5",
                          "0.1",
                          "0.3437204",
                          "21.55769",
                          "-4.321928",
                          "1e22",
                          "1e-22",
                          "123456789012345",
                          "0.000000000000001",
                          "5.",
                          ".5",
                          "-.5e3",
                          "1e5x",
                          "2.5e",
                          "2.5e+",
                          "3E-7",
                          "1.5e+010",
                          "9007199254740.99",
                          "00x1",
                          "7,",
                          "6]",
                          "0.1000000000000"})
      CHECK(agrees(t));
  }

  TEST_CASE("what is not exact or not a plain decimal is declined") {
    for (const char* t :
         {"1e23", "1e-23", "1234567890123456", "0.1000000000000000", " 1", "inf", "-nan", "0x1p3",
          "-0X10", "", "-", ".", "e5", "1e99999", "12345678901234567890"}) {
      double v = 42.0;
      char* end = nullptr;
      CAPTURE(t);
      CHECK_FALSE(exact_decimal_to_double(t, &end, &v));
      CHECK(v == 42.0);  // nothing written
      CHECK(end == nullptr);
    }
  }

  TEST_CASE("random decimals of up to 15 digits agree bit for bit with strtod") {
    std::mt19937_64 rng(7);
    int taken = 0;
    for (int i = 0; i < 200000; ++i) {
      std::string s = rng() % 2 ? "-" : "";
      const int int_digits = int(rng() % 9), frac_digits = int(rng() % 10);
      for (int d = 0; d < int_digits; ++d) s += char('0' + rng() % 10);
      if (int_digits == 0 || rng() % 2) {
        s += '.';
        for (int d = 0; d < frac_digits; ++d) s += char('0' + rng() % 10);
      }
      if (rng() % 3 == 0) s += "e" + std::to_string(int(rng() % 45) - 22);
      if (agrees(s)) ++taken;
    }
    CHECK(taken > 150000);  // the common case is the fast one
  }
}
