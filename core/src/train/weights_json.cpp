#include "train/weights_json.hpp"

#include <cstdio>
#include <cstdlib>

namespace tilecast::train {

double round7(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return std::strtod(buf, nullptr);
}

nlohmann::ordered_json numbers(const std::vector<double>& v) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (double x : v) a.push_back(round7(x));
  return a;
}

nlohmann::ordered_json net_json(const Mlp& m) {
  nlohmann::ordered_json j;
  j["mean"] = numbers(m.mean);
  j["scale"] = numbers(m.scale);
  j["lo"] = numbers(m.lo);
  j["hi"] = numbers(m.hi);
  j["layers"] = nlohmann::ordered_json::array();
  for (const MlpLayer& L : m.layers) {
    nlohmann::ordered_json l;
    l["in"] = L.in;
    l["out"] = L.out;
    l["w"] = numbers(L.w);
    l["b"] = numbers(L.b);
    j["layers"].push_back(l);
  }
  return j;
}

std::string hex64(std::uint64_t h) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace tilecast::train
