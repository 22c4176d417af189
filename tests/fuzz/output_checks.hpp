// What every successful API answer must satisfy, checked by the fuzz harnesses on each output:
// valid JSON; no NaN or infinity (nlohmann writes them as null, so a null is allowed only for
// the fields documented as nullable); no negative time, size or count; and each 80% band
// around its forecast (band low <= forecast <= band high, or multipliers low <= 1 <= high; a
// simulation's band holds each of its figures, a capacity plan's best option its replicas); a
// simulation's percentiles in order and its mean end-to-end latency not below its mean TTFT. A
// failure aborts, which libFuzzer reports with the input that caused it.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tilecast::fuzz {

[[noreturn]] inline void fail(const std::string& why, std::string_view output) {
  std::fprintf(stderr, "output check failed: %s\noutput (first 2000 bytes): %.*s\n", why.c_str(),
               int(std::min<std::size_t>(output.size(), 2000)), output.data());
  std::abort();
}

// Fields that may hold null: the bands of predictors without one, optional links, and a
// capacity plan's best option when none meets the SLO (capacity_plan.schema.json).
inline bool nullable(std::string_view key) {
  return key == "band_low_ms" || key == "band_high_ms" || key == "band" || key == "calibration" ||
         key == "gpu_interconnect" || key == "network" || key == "nvlink" || key == "pcie" ||
         key == "memory" || key == "best" || key == "replicas_band";
}

// Fields that may be negative: a stream span of no micro-batch (-1).
inline bool signed_field(std::string_view key) { return key == "microbatch"; }

inline void check_value(const nlohmann::json& v, const std::string& key, std::string_view out) {
  if (v.is_null()) {
    if (!nullable(key)) fail("field '" + key + "' is null (NaN, infinity or missing)", out);
  } else if (v.is_number()) {
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail("field '" + key + "' is not finite", out);
    if (x < 0 && !signed_field(key)) fail("field '" + key + "' is negative", out);
  } else if (v.is_array()) {
    for (const auto& e : v) check_value(e, key, out);
  } else if (v.is_object()) {
    for (const auto& [k, e] : v.items()) check_value(e, k, out);
    // a forecast beside its band: low <= forecast <= high
    const auto lo = v.find("band_low_ms"), hi = v.find("band_high_ms");
    const auto at = v.find("latency_ms");
    if (lo != v.end() && hi != v.end() && at != v.end() && lo->is_number() && hi->is_number() &&
        at->is_number()) {
      const double l = lo->get<double>(), h = hi->get<double>(), f = at->get<double>();
      if (!(l <= f && f <= h)) fail("band low <= forecast <= band high does not hold", out);
    }
    // a band given as multipliers of the forecast's times (a static serve): low <= 1 <= high;
    // a simulation's (serving_load.schema.json LoadBand): its step multiples so, and each of its
    // ranges [least, most] holding the answer's own figure
    const auto band = v.find("band");
    if (band != v.end() && band->is_object() && band->contains("step_low")) {
      const double l = band->value("step_low", -1.0), h = band->value("step_high", -1.0);
      if (!(0 < l && l <= 1 && 1 <= h))
        fail("band step multiples: 0 < low <= 1 <= high does not hold", out);
      const auto holds = [&](const nlohmann::json& range, const nlohmann::json& x,
                             const std::string& what) {
        if (!range.is_array() || range.size() != 2 || !x.is_number() ||
            !(range[0].get<double>() <= x.get<double>() &&
              x.get<double>() <= range[1].get<double>()))
          fail("band " + what + ": least <= figure <= most does not hold", out);
      };
      for (const char* rate : {"output_tokens_per_s", "requests_per_s"})
        holds(band->value(rate, nlohmann::json()), v.value(rate, nlohmann::json()), rate);
      for (const char* latency : {"ttft_ms", "tpot_ms", "e2e_ms"})
        for (const char* p : {"p50", "p90", "p99", "mean"})
          holds((*band)[latency][p], v[latency][p], std::string(latency) + " " + p);
    } else if (band != v.end() && band->is_object()) {
      const double l = band->value("low", -1.0), h = band->value("high", -1.0);
      if (!(0 < l && l <= 1 && 1 <= h))
        fail("band multipliers: 0 < low <= 1 <= high does not hold", out);
    }
    // a simulation's latencies: each percentile set in order (p50 <= p90 <= p99), and no
    // request finishing before its first token, so mean e2e >= mean TTFT
    for (const char* latency : {"ttft_ms", "tpot_ms", "e2e_ms"}) {
      const auto p = v.find(latency);
      // (a band's latencies are ranges: not these)
      if (p == v.end() || !p->is_object() || !p->contains("p99") || !(*p)["p99"].is_number())
        continue;
      const double p50 = p->value("p50", 0.0), p90 = p->value("p90", 0.0),
                   p99 = p->value("p99", 0.0);
      if (!(p50 <= p90 && p90 <= p99))
        fail(std::string(latency) + ": p50 <= p90 <= p99 does not hold", out);
    }
    const auto ttft = v.find("ttft_ms"), e2e = v.find("e2e_ms");
    if (ttft != v.end() && e2e != v.end() && ttft->is_object() && e2e->is_object() &&
        ttft->contains("mean") && e2e->contains("mean") && (*ttft)["mean"].is_number() &&
        (*e2e)["mean"].is_number() &&
        !(e2e->value("mean", 0.0) >= ttft->value("mean", 0.0) * (1 - 1e-12)))
      fail("mean e2e >= mean TTFT does not hold", out);
    // a capacity plan's best option: fast edge <= its replicas <= slow edge (null: beyond)
    const auto replicas_band = v.find("replicas_band");
    if (replicas_band != v.end() && replicas_band->is_array()) {
      const auto& b = *replicas_band;
      const double n = v.value("replicas", -1.0);
      if (b.size() != 2 || !b[0].is_number() || !(b[0].get<double>() <= n) ||
          !(b[1].is_null() || (b[1].is_number() && n <= b[1].get<double>())))
        fail("replicas band: fast <= replicas <= slow does not hold", out);
    }
  }
}

// Checks one answer of the API.
inline void check_output(std::string_view out) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("not valid JSON: ") + e.what(), out);
  }
  check_value(j, "", out);
}

}  // namespace tilecast::fuzz
