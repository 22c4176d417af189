#include "learned/weights.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kernel/family.hpp"
#include "learned/features.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

using nlohmann::json;

constexpr int kMaxWidth = 64;

std::vector<double> numbers(const json& j, const std::string& where, std::size_t want) {
  if (!j.is_array() || j.size() != want)
    throw Error(where + " must be an array of " + std::to_string(want) + " numbers");
  std::vector<double> v;
  v.reserve(want);
  for (const auto& x : j) {
    if (!x.is_number() || !std::isfinite(x.get<double>()))
      throw Error(where + " holds " + x.dump() + "; expected a finite number");
    v.push_back(x.get<double>());
  }
  return v;
}

int width(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j.at(key).is_number_integer())
    throw Error(where + "." + key + " must be an integer");
  const int v = j.at(key).get<int>();
  if (v < 1 || v > kMaxWidth)
    throw Error(where + "." + key + " is " + std::to_string(v) + "; allowed 1 to 64");
  return v;
}

Mlp parse_net(const json& j, const std::string& where, std::size_t inputs, int outputs) {
  Mlp m;
  if (!j.is_object() || !j.contains("layers") || !j.at("layers").is_array() ||
      j.at("layers").empty())
    throw Error(where + " must be an object with a non-empty 'layers' array");
  int prev = -1;
  for (std::size_t l = 0; l < j.at("layers").size(); ++l) {
    const json& L = j.at("layers")[l];
    const std::string lw = where + ".layers[" + std::to_string(l) + "]";
    MlpLayer layer;
    layer.in = width(L, "in", lw);
    layer.out = width(L, "out", lw);
    if (prev >= 0 && layer.in != prev) throw Error(lw + ".in does not match the layer before");
    prev = layer.out;
    layer.w = numbers(L.value("w", json()), lw + ".w", std::size_t(layer.in) * layer.out);
    layer.b = numbers(L.value("b", json()), lw + ".b", std::size_t(layer.out));
    m.layers.push_back(std::move(layer));
  }
  if (std::size_t(m.inputs()) != inputs)
    throw Error(where + " takes " + std::to_string(m.inputs()) + " inputs; the features are " +
                std::to_string(inputs));
  if (m.outputs() != outputs)
    throw Error(where + " must have " + std::to_string(outputs) + " outputs");
  m.mean = numbers(j.value("mean", json()), where + ".mean", inputs);
  m.scale = numbers(j.value("scale", json()), where + ".scale", inputs);
  m.lo = numbers(j.value("lo", json()), where + ".lo", inputs);
  m.hi = numbers(j.value("hi", json()), where + ".hi", inputs);
  for (std::size_t i = 0; i < inputs; ++i)
    if (m.lo[i] > m.hi[i]) throw Error(where + ": lo[" + std::to_string(i) + "] > hi");
  m.prepare();
  return m;
}

FamilyModel parse_family(const json& j, const std::string& where, OpFamily family) {
  if (!j.is_object() || !j.contains("steady") || !j.contains("tail"))
    throw Error(where + " must be an object with 'steady' and 'tail' nets");
  const FamilyTraits& traits = family_traits(family);
  const std::vector<std::string> names = feature_names(family);
  const std::size_t n = names.size();
  if (j.contains("features")) {
    const json& listed = j.at("features");
    bool same = listed.is_array() && listed.size() == n;
    for (std::size_t i = 0; same && i < n; ++i)
      same = listed[i].is_string() && listed[i].get<std::string>() == names[i];
    if (!same)
      throw Error(where + ".features are not the features of family '" + traits.name +
                  "' in order; retrain (scripts/train.sh)");
  }
  FamilyModel m;
  m.steady = parse_net(j.at("steady"), where + ".steady", n, 1);
  m.tail = parse_net(j.at("tail"), where + ".tail", n, 2);
  if (!j.contains("overhead_max_ms") || !j.at("overhead_max_ms").is_number())
    throw Error(where + ".overhead_max_ms must be a number");
  m.overhead_max_ms = j.at("overhead_max_ms").get<double>();
  if (!(m.overhead_max_ms >= 0 && m.overhead_max_ms < 10))
    throw Error(where + ".overhead_max_ms must be in [0, 10)");
  if (j.contains("tile_time") && !j.at("tile_time").is_string())
    throw Error(where + ".tile_time must be a string");
  const std::string tile_time = j.value("tile_time", std::string("roofline"));
  // "streaming[ traffic][ without launch]": see FamilyModel.
  const std::string_view kWithout = " without launch";
  m.reference_without_launch = tile_time.size() > kWithout.size() && tile_time.ends_with(kWithout);
  const std::string reference = m.reference_without_launch
                                    ? tile_time.substr(0, tile_time.size() - kWithout.size())
                                    : tile_time;
  if (reference != "roofline" && reference != "streaming" && reference != "streaming traffic")
    throw Error(where + ".tile_time is '" + tile_time +
                "'; allowed: roofline, streaming, streaming traffic (either streaming one "
                "optionally followed by ' without launch')");
  m.streaming_tiles = reference != "roofline";
  if (!m.streaming_tiles && m.reference_without_launch)
    throw Error(where + ".tile_time '" + tile_time + "': ' without launch' is for streaming only");
  if (m.streaming_tiles && !traits.streaming_traffic)
    throw Error(where + ".tile_time '" + tile_time +
                "' is only for row families with a streaming time (softmax, layernorm)");
  // The reference the net learned against must be the one the family forecasts against.
  if (m.streaming_tiles && (reference == "streaming traffic") != traits.learned_against_traffic)
    throw Error(where + ".tile_time '" + tile_time + "' is not what " + traits.name +
                " learns against; retrain (scripts/train.sh)");
  return m;
}

}  // namespace

void FamilyModel::forward(const double* x, double* out) const {
  steady.forward(x, out);
  tail.forward(x, out + 1);
}

const FamilyModel* KernelWeights::find(std::string_view family) const {
  const auto it = families.find(family);
  return it == families.end() ? nullptr : &it->second;
}

std::string_view family_name(OpFamily f) { return family_traits(f).name; }

KernelWeights parse_kernel_weights(std::string_view text, std::string_view origin) {
  const std::string where(origin);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("families") ||
      !j.at("families").is_object())
    throw Error(where + ": not a kernel weights file (expected an object with 'families')");
  KernelWeights w;
  for (int id = 0; id < family_count(); ++id) {
    const OpFamily f = static_cast<OpFamily>(id);
    const std::string name(family_name(f));
    if (j.at("families").contains(name))
      w.families.emplace(name,
                         parse_family(j.at("families").at(name), where + ": families." + name, f));
  }
  if (j.contains("trained_on")) {
    const json& t = j.at("trained_on");
    if (!t.is_array()) throw Error(where + ": trained_on must be an array of device names");
    for (const auto& d : t) {
      if (!d.is_string()) throw Error(where + ": trained_on must hold only device names");
      w.trained_on.push_back(d.get<std::string>());
    }
  }
  return w;
}

FamilyModel parse_family_model(std::string_view text, std::string_view origin, OpFamily f) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) throw Error(std::string(origin) + ": not valid JSON");
  return parse_family(j, std::string(origin), f);
}

}  // namespace tilecast
