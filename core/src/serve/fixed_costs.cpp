// Serving fixed costs from core/data/engines/serving.json (sources and assumptions there).
#include "serve/fixed_costs.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "common/embedded_data.hpp"
#include "forecast/kernel_times.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {

const nlohmann::json& serving_engines_json() {
  static const nlohmann::json j = [] {
    const std::string_view text = embedded::find(kServingEnginesPath);
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    if (text.empty() || parsed.is_discarded() || !parsed.is_object())
      throw Error(std::string(kServingEnginesPath) + " is missing or not valid JSON");
    return parsed;
  }();
  return j;
}

const ServingFixedCosts& serving_fixed_costs() {
  static const ServingFixedCosts c = [] {
    const nlohmann::json& j = serving_engines_json();
    auto num = [&](const char* key, double lo, double hi) {
      if (!j.contains(key) || !j[key].is_number() || !(j[key].get<double>() >= lo) ||
          !(j[key].get<double>() <= hi))
        throw Error(std::string(kServingEnginesPath) + ": field '" + key +
                    "' must be a number from " + std::to_string(lo) + " to " + std::to_string(hi));
      return j[key].get<double>();
    };
    ServingFixedCosts f;
    f.sampling_logits_bytes = num("sampling_logits_bytes", 1, 8);
    f.sampling_passes = num("sampling_passes", 0, 10);
    f.tokenize_tokens_per_s = num("tokenize_tokens_per_s", 1, 1e9);
    f.host_ms_per_step = num("host_ms_per_step", 0, 1e3);
    f.host_ms_per_request = num("host_ms_per_request", 0, 1e3);
    if (j.contains("checks_by_architecture")) {
      const nlohmann::json& a = j["checks_by_architecture"];
      if (!a.is_object())
        throw Error(std::string(kServingEnginesPath) +
                    ": field 'checks_by_architecture' must be an object");
      for (const auto& [arch, note] : a.items()) {
        if (!note.is_string() || note.get<std::string>().empty())
          throw Error(std::string(kServingEnginesPath) + ": checks_by_architecture." + arch +
                      " must be a non-empty string");
        f.checks_by_architecture.emplace_back(arch, note.get<std::string>());
      }
    }
    auto note = [&](const char* key) {
      if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
        throw Error(std::string(kServingEnginesPath) + ": field '" + key +
                    "' must be a non-empty string");
      return j[key].get<std::string>();
    };
    f.checks_loaded = note("checks_loaded");
    f.checks_mixtures = note("checks_mixtures");
    f.checks_short_prompt = note("checks_short_prompt");
    return f;
  }();
  return c;
}

double sampling_step_ms(const GpuSpec& gpu, double stream_bw_gbps, std::int64_t seqs,
                        std::int64_t vocab) {
  const ServingFixedCosts& c = serving_fixed_costs();
  const double logits = double(seqs) * double(vocab);
  // a max/compare (or exp and add) per logit and pass; the read dominates
  const double compute_ms =
      fused_roofline_ms(gpu, DataType::fp32, 2 * logits * c.sampling_passes, 0);
  const double read_ms =
      logits * c.sampling_logits_bytes * c.sampling_passes / (stream_bw_gbps * 1e6);
  return std::max(compute_ms, read_ms) + c.host_ms_per_step;
}

double request_host_ms(std::int64_t prompt_tokens) {
  const ServingFixedCosts& c = serving_fixed_costs();
  return double(prompt_tokens) / c.tokenize_tokens_per_s * 1e3 + c.host_ms_per_request;
}

}  // namespace tilecast::detail
