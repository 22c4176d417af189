// Every numeric request field at its validator's maximum, alone and all together, answers (a
// forecast, or a clear tilecast::Error: naming a field, the work budget or what does not fit)
// within the work budget
// (issue 33): each answered request was estimated (forecast/work_budget.hpp), and every request
// did no more work than the budget allows, counted as it ran (not timed: bench/limits_bench.cpp
// times them).
// The fields come from the parsers themselves (tests/support/request_maxima.hpp).
#include "forecast/work_budget.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "support/request_maxima.hpp"
#include "tilecast/error.hpp"

namespace {

// A clear error: it names one of the fields set (in quotes, or in a product like "tp x pp"),
// another field the request needs ("field 'requests' is missing"), the work budget, or what
// does not fit (the model in memory, a request in the KV cache, GPUs in a system).
bool is_clear(const std::string& message, const std::vector<std::string>& fields) {
  if (message.rfind("internal", 0) == 0) return false;
  for (const char* said : {"budget", "field '", "does not fit", "the cache holds", "too large",
                           "more than", "at most"})
    if (message.find(said) != std::string::npos) return true;
  for (const std::string& f : fields)
    if (message.find(f) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_SUITE("work_budget") {
  TEST_CASE("the product's budget is 1e7 steps (only the fuzz builds set a smaller one)") {
    CHECK(tilecast::detail::kMaxReplaySteps == 1e7);
  }

  TEST_CASE("every numeric request field at its maximum, alone and together, stays in the budget") {
    std::vector<std::string> unknown_origins;
    const std::vector<tilecast::test::LimitCase> cases =
        tilecast::test::request_maxima(unknown_origins);
    for (const std::string& u : unknown_origins) {
      INFO("a numeric field read from an origin request_maxima.hpp does not place: " << u);
      CHECK(false);
    }
    // the list is the parsers' own: the fields the issue names are in it (an observer that
    // stopped seeing reads would empty it)
    std::set<std::string> seen;
    for (const auto& c : cases)
      for (const auto& f : c.fields) seen.insert(f);
    for (const char* f : {"batch",
                          "seq",
                          "context",
                          "gpus",
                          "dp",
                          "tp",
                          "pp",
                          "microbatches",
                          "zero",
                          "bucket_mb",
                          "virtual_stages",
                          "tokens",
                          "prompt",
                          "output",
                          "qps",
                          "concurrency",
                          "requests",
                          "seed",
                          "max_batch_tokens",
                          "max_seqs",
                          "slo_ttft_ms",
                          "slo_tpot_ms",
                          "arrival_ms",
                          "global_batch",
                          "max_microbatches",
                          "top",
                          "max_gpus",
                          "price_per_gpu_hour",
                          "bytes",
                          "gpus_per_node",
                          "n_layer",
                          "num_hidden_layers",
                          "hidden_size",
                          "dims"}) {
      INFO("field " << f);
      CHECK(seen.count(f) == 1);
    }
    MESSAGE(cases.size() << " requests, " << seen.size() << " distinct fields");

    int answered = 0;
    for (const auto& c : cases) {
      tilecast::detail::reset_work_ledger();
      std::string error;
      try {
        c.call(c.request.dump());
        ++answered;
      } catch (const tilecast::Error& e) {
        error = e.what();
      }
      const tilecast::detail::WorkLedger ledger = tilecast::detail::work_ledger();
      INFO(c.name << ": " << (error.empty() ? "answered" : error));
      INFO("estimates " << ledger.estimates << ", largest " << ledger.largest_estimate
                        << ", work done " << ledger.work_done);
      // answered or refused (a serving simulation may be refused as it runs), no more work
      // than the budget
      CHECK(ledger.work_done <= tilecast::detail::kMaxReplaySteps);
      if (error.empty()) {
        CHECK(ledger.estimates >= 1);
        CHECK(ledger.largest_estimate <= tilecast::detail::kMaxReplaySteps);
      } else {
        CHECK(is_clear(error, c.fields));
      }
    }
    MESSAGE(answered << " answered with a forecast, the rest with an error");
  }
}
