// Load requests the serving-simulation tests share: Poisson arrivals and closed-loop clients at
// fixed lengths (tilecast/serving_load.hpp).
#pragma once

#include <cstdint>

#include "tilecast/serving_load.hpp"

namespace tilecast::test {

// n requests arriving as a Poisson stream at `qps`, each `prompt` + `output` tokens
inline LoadRequest poisson(double qps, std::int64_t n, std::int64_t prompt = 512,
                           std::int64_t output = 128) {
  LoadRequest r;
  r.serving.prompt = prompt;
  r.serving.output = output;
  r.arrivals = Arrivals::poisson;
  r.qps = qps;
  r.requests = n;
  return r;
}

// `clients` closed-loop clients sending n requests of fixed lengths (n = clients: offline)
inline LoadRequest closed_loop(std::int64_t clients, std::int64_t n, std::int64_t prompt,
                               std::int64_t output) {
  LoadRequest r = poisson(1, n, prompt, output);
  r.arrivals = Arrivals::closed_loop;
  r.concurrency = clients;
  return r;
}

}  // namespace tilecast::test
