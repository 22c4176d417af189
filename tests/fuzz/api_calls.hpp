// Every request-taking function of the JSON API (core/include/tilecast/api.hpp), by index, and
// how a harness calls one: a tilecast::Error is an answer (bad input, named); any other
// exception is a finding and aborts; a successful answer goes through the output checks.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "output_checks.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

namespace tilecast::fuzz {

struct ApiCall {
  const char* name;
  std::string (*fn)(std::string_view);
};

inline constexpr ApiCall kApiCalls[] = {
    {"forecast_kernel", api::forecast_kernel},   {"forecast_model", api::forecast_model},
    {"forecast_serving", api::forecast_serving}, {"forecast_collective", api::forecast_collective},
    {"plan_parallel", api::plan_parallel},       {"validate_gpu", api::validate_gpu},
    {"validate_model", api::validate_model},     {"validate_system", api::validate_system},
    {"plan_capacity", api::plan_capacity},  // last: the raw corpus's first bytes 0-7 keep theirs
};
inline constexpr std::size_t kApiCallCount = sizeof(kApiCalls) / sizeof(kApiCalls[0]);

inline void call_and_check(const ApiCall& call, std::string_view request) {
  std::string out;
  try {
    out = call.fn(request);
  } catch (const tilecast::Error&) {
    return;  // a named refusal
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: a non-tilecast exception escaped: %s\n", call.name, e.what());
    std::abort();
  }
  check_output(out);
}

}  // namespace tilecast::fuzz
