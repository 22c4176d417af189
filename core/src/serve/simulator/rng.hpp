// The simulator's random numbers: SplitMix64 and a natural log from +, *, / only, so a seed
// gives the same arrivals bit for bit natively and in WebAssembly (no libm in the path).
#pragma once

#include <cmath>
#include <cstdint>

namespace tilecast::detail {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1]: 53 random bits, never 0.
  double unit() { return double((next() >> 11) + 1) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// ln(x) for x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s), s = (m-1)/(m+1),
// |s| < 0.172, by its series to s^29 (error below 1e-16 relative). frexp and ldexp are exact.
inline double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2;
    --e;
  }
  const double s = (m - 1) / (m + 1), s2 = s * s;
  double term = s, sum = 0;
  for (int k = 1; k <= 29; k += 2) {
    sum += term / double(k);
    term *= s2;
  }
  return 2 * sum + double(e) * 0.69314718055994530942;
}

// Uniform in [lo, hi] (hi >= lo; the modulo's bias is below (hi - lo + 1) / 2^64).
inline std::int64_t uniform_int(SplitMix64& rng, std::int64_t lo, std::int64_t hi) {
  return lo + std::int64_t(rng.next() % std::uint64_t(hi - lo + 1));
}

// An exponential interval of mean 1 / rate.
inline double exponential(SplitMix64& rng, double rate) { return -portable_log(rng.unit()) / rate; }

}  // namespace tilecast::detail
