// Parsing, writing and looking up the 80% error bands (tilecast/error_bands.hpp).
#include "tilecast/error_bands.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/embedded_data.hpp"
#include "common/json_fields.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

constexpr std::string_view kFormat = "tilecast-error-bands-1";

ErrorBand parse_band(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object()) throw Error(origin + ": expected an object {low, high, n}");
  ErrorBand b;
  b.low = detail::number_field(j, "low", origin, 1e-6, 1e6);
  b.high = detail::number_field(j, "high", origin, b.low, 1e6);
  b.n = detail::integer_field(j, "n", origin, 0, std::int64_t{1} << 40);
  return b;
}

nlohmann::ordered_json band_json(const ErrorBand& b) {
  auto round4 = [](double v) { return std::round(v * 1e4) / 1e4; };
  return {{"low", round4(b.low)}, {"high", round4(b.high)}, {"n", b.n}};
}

}  // namespace

int ErrorBands::size_class(double forecast_ms) const {
  int c = 0;
  while (c < int(class_edges_ms.size()) && forecast_ms >= class_edges_ms[std::size_t(c)]) ++c;
  return c;
}

const ErrorBand* ErrorBands::kernel_band(std::string_view family, double forecast_ms) const {
  const auto it = kernel.find(family);
  if (it == kernel.end()) return nullptr;
  const std::size_t c = std::size_t(size_class(forecast_ms));
  return c < it->second.size() ? &it->second[c] : nullptr;
}

const ErrorBand* ErrorBands::model_band(Mode mode) const {
  const auto it = model.find(mode == Mode::training ? "training" : "inference");
  return it == model.end() ? nullptr : &it->second;
}

ErrorBands parse_error_bands(std::string_view json_text, std::string_view origin) {
  const std::string o(origin);
  const nlohmann::json j = detail::parse_json(json_text, o);
  if (detail::string_field(j, "format", o) != kFormat)
    throw Error(o + ": format must be '" + std::string(kFormat) + "'");
  ErrorBands b;
  b.protocol_hash = detail::string_field(j, "protocol_hash", o);
  const auto& edges = j.at("kernel_class_edges_ms");
  if (!edges.is_array()) throw Error(o + ": kernel_class_edges_ms must be an array");
  for (const auto& e : edges) {
    if (!e.is_number() || !(e.get<double>() > 0) ||
        (!b.class_edges_ms.empty() && e.get<double>() <= b.class_edges_ms.back()))
      throw Error(o + ": kernel_class_edges_ms must be increasing positive numbers");
    b.class_edges_ms.push_back(e.get<double>());
  }
  if (!j.contains("kernel") || !j["kernel"].is_object())
    throw Error(o + ": kernel must be an object of families");
  for (const auto& [family, classes] : j["kernel"].items()) {
    if (!classes.is_array() || classes.size() != b.class_edges_ms.size() + 1)
      throw Error(o + ": kernel." + family + " must list one band per size class");
    std::vector<ErrorBand>& out = b.kernel[family];
    for (const auto& c : classes) out.push_back(parse_band(c, o + ": kernel." + family));
  }
  if (!j.contains("model") || !j["model"].is_object())
    throw Error(o + ": model must be an object of modes");
  for (const auto& [mode, band] : j["model"].items()) {
    if (mode != "training" && mode != "inference")
      throw Error(o + ": model." + mode + ": the modes are training and inference");
    b.model[mode] = parse_band(band, o + ": model." + mode);
  }
  return b;
}

std::string error_bands_to_json(const ErrorBands& b, const std::string& command) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["what"] =
      "80% bands: multipliers of a forecast at the 10th and 90th percentiles of measured / "
      "forecast latency for an architecture never trained on, predicted from the "
      "generalization protocol's out-of-architecture residuals with each architecture's own "
      "bias as a random effect (Student's t over the architectures; docs/generalization.md); "
      "kernels per op family and size class of the forecast latency, whole models per mode "
      "(prefill and decode take the inference band)";
  j["command"] = command;
  j["protocol_hash"] = b.protocol_hash;
  j["kernel_class_edges_ms"] = b.class_edges_ms;
  j["kernel"] = nlohmann::ordered_json::object();
  for (const auto& [family, classes] : b.kernel) {
    j["kernel"][family] = nlohmann::ordered_json::array();
    for (const ErrorBand& c : classes) j["kernel"][family].push_back(band_json(c));
  }
  j["model"] = nlohmann::ordered_json::object();
  for (const auto& [mode, band] : b.model) j["model"][mode] = band_json(band);
  return j.dump(2);
}

const ErrorBands& embedded_error_bands() {
  static const ErrorBands bands = [] {
    const std::string_view text = embedded::find("core/data/error_bands.json");
    if (text.empty()) return ErrorBands{};
    return parse_error_bands(text, "core/data/error_bands.json");
  }();
  return bands;
}

const ErrorBand* forecast_model_band(Predictor predictor, Mode mode) {
  return predictor == Predictor::tilecast ? embedded_error_bands().model_band(mode) : nullptr;
}

}  // namespace tilecast
