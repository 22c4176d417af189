// Microseconds per call of `f`: one warm-up call (catalog, zoo and weights load lazily), then
// calls until a second has passed or `max_calls` were made.
#pragma once

#include <chrono>

namespace tilecast::bench {

template <class F>
double micros_per_call(F&& f, int max_calls) {
  f();
  int n = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  do {
    f();
    ++n;
    elapsed =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  } while (elapsed < 1e6 && n < max_calls);
  return elapsed / n;
}

}  // namespace tilecast::bench
