// The efficiency curves per (link class, family) as JSON, and the embedded default
// (core/data/comm_calibration.json, written by `tilecast calibrate-comm`).
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "common/embedded_data.hpp"
#include "common/json_fields.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

LinkClass parse_link_class(const std::string& s, const std::string& origin) {
  if (auto c = find_enum(link_class_names(), s)) return *c;
  throw Error(origin + ": field 'link' is \"" + s +
              "\"; allowed: " + allowed_enum_names(link_class_names()));
}

CommFamily parse_family(const std::string& s, const std::string& origin) {
  if (auto f = find_enum(comm_family_names(), s)) return *f;
  throw Error(origin + ": field 'family' is \"" + s +
              "\"; allowed: " + allowed_enum_names(comm_family_names()));
}

}  // namespace

CommCalibration parse_comm_calibration(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  const nlohmann::json j = detail::parse_json(json_text, origin);
  CommCalibration out;
  out.fitted_on = detail::string_field(j, "fitted_on", origin, false);
  out.command = detail::string_field(j, "command", origin, false);
  if (!detail::has_field(j, "curves") || !j["curves"].is_array())
    throw Error(where + ": field 'curves' must be an array");
  int k = 0;
  for (const auto& c : j["curves"]) {
    const std::string o = where + ": curves[" + std::to_string(k++) + "]";
    if (!c.is_object()) throw Error(o + ": expected an object");
    const LinkClass link = parse_link_class(detail::string_field(c, "link", o), o);
    const CommFamily family = parse_family(detail::string_field(c, "family", o), o);
    EfficiencyCurve e;
    e.alpha_us = detail::number_field(c, "alpha_us", o, 0, 1e5);
    e.e_max = detail::number_field(c, "e_max", o, 1e-3, 2);
    e.s_half_bytes = detail::number_field(c, "s_half_bytes", o, 0, 1e12);
    if (detail::has_field(c, "launch_us"))
      e.launch_us = detail::number_field(c, "launch_us", o, 0, 1e5);
    if (!out.curves.emplace(std::make_pair(link, family), e).second)
      throw Error(o + ": a second curve for " + std::string(link_class_name(link)) + "/" +
                  std::string(comm_family_name(family)));
  }
  if (out.curves.empty()) throw Error(where + ": field 'curves' is empty");
  return out;
}

std::string comm_calibration_to_json(const CommCalibration& calibration) {
  // Four significant digits: the file is read by people too, and the fit is not finer.
  auto round4 = [](double v) {
    if (v == 0) return 0.0;
    const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::abs(v))));
    return std::round(v * scale) / scale;
  };
  nlohmann::ordered_json curves = nlohmann::ordered_json::array();
  for (const auto& [key, e] : calibration.curves) {
    nlohmann::ordered_json c;
    c["link"] = std::string(link_class_name(key.first));
    c["family"] = std::string(comm_family_name(key.second));
    c["alpha_us"] = round4(e.alpha_us);
    c["e_max"] = round4(e.e_max);
    c["s_half_bytes"] = round4(e.s_half_bytes);
    if (e.launch_us >= 0) c["launch_us"] = round4(e.launch_us);
    curves.push_back(c);
  }
  nlohmann::ordered_json j;
  j["fitted_on"] = calibration.fitted_on;
  j["command"] = calibration.command;
  j["model"] =
      "time = steps x alpha_us + bytes x bytes_factor / (path bandwidth x e_max x bytes "
      "/ (bytes + s_half_bytes)) for Simple; LL and LL128 at NCCL's tuning-model latency "
      "(core/data/comm_protocols.json) plus launch_us, the median excess of the one-node rows of "
      "at most 64 KiB over LL; on one node the fastest of the three; docs/comm.md";
  j["curves"] = curves;
  return j.dump(2);
}

const CommCalibration& default_comm_calibration() {
  static const CommCalibration c = [] {
    constexpr std::string_view kPath = "core/data/comm_calibration.json";
    const std::string_view text = embedded::find(kPath);
    if (text.empty()) throw Error(std::string(kPath) + " was not embedded");
    return parse_comm_calibration(text, kPath);
  }();
  return c;
}

}  // namespace tilecast
