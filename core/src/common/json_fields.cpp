#include "common/json_fields.hpp"

#include <cmath>

#include "common/format.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {
namespace {

constexpr std::size_t kMaxTextBytes = 4 << 20;
constexpr int kMaxDepth = 64;

std::string describe(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

std::string fmt(double v) { return format_g(v); }

// A control character (a newline, an ANSI escape) in text shown in terminals and pages could
// rewrite what a reader sees.
bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

thread_local FieldReads* g_reads = nullptr;

void note_numeric(std::string_view origin, std::string_view field, double min, double max,
                  bool integer) {
  if (g_reads)
    g_reads->numeric.push_back({std::string(origin), std::string(field), min, max, integer});
}

const nlohmann::json& require(const nlohmann::json& obj, std::string_view field,
                              std::string_view origin) {
  auto it = obj.find(std::string(field));
  if (it == obj.end() || it->is_null())
    throw Error(std::string(origin) + ": field '" + std::string(field) + "' is missing");
  return *it;
}

}  // namespace

nlohmann::json parse_json(std::string_view text, std::string_view origin) {
  if (text.size() > kMaxTextBytes)
    throw Error(std::string(origin) + ": input is " + std::to_string(text.size()) +
                " bytes; at most " + std::to_string(kMaxTextBytes) + " are accepted");
  bool too_deep = false;
  auto limit = [&](int d, nlohmann::json::parse_event_t ev, nlohmann::json&) {
    if ((ev == nlohmann::json::parse_event_t::object_start ||
         ev == nlohmann::json::parse_event_t::array_start) &&
        d >= kMaxDepth)
      too_deep = true;
    return !too_deep;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.begin(), text.end(), limit);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    auto pos = what.find("] ");
    throw Error(std::string(origin) +
                ": not valid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
  if (too_deep)
    throw Error(std::string(origin) + ": JSON nested deeper than " + std::to_string(kMaxDepth) +
                " levels");
  if (!j.is_object()) throw Error(std::string(origin) + ": expected a JSON object");
  return j;
}

void observe_field_reads(FieldReads* sink) { g_reads = sink; }

bool has_field(const nlohmann::json& obj, std::string_view field) {
  if (g_reads) g_reads->asked.emplace_back(field);
  auto it = obj.find(std::string(field));
  return it != obj.end() && !it->is_null();
}

double number_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                    double min, double max) {
  note_numeric(origin, field, min, max, false);
  const auto& v = require(obj, field, origin);
  if (!v.is_number())
    throw Error(std::string(origin) + ": field '" + std::string(field) +
                "' must be a number, got " + describe(v));
  double x = v.get<double>();
  if (!std::isfinite(x) || x < min || x > max)
    throw Error(std::string(origin) + ": field '" + std::string(field) + "' is " + describe(v) +
                "; allowed: " + fmt(min) + " to " + fmt(max));
  return x;
}

double positive_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                      double max) {
  const double x = number_field(obj, field, origin, -max, max);
  if (!(x > 0))
    throw Error(std::string(origin) + ": field '" + std::string(field) + "' is " + fmt(x) +
                "; allowed: a number above 0, at most " + fmt(max));
  return x;
}

long long integer_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                        long long min, long long max) {
  note_numeric(origin, field, double(min), double(max), true);
  const auto& v = require(obj, field, origin);
  double x = v.is_number() ? v.get<double>() : NAN;
  if (!v.is_number() || !std::isfinite(x) || std::floor(x) != x)
    throw Error(std::string(origin) + ": field '" + std::string(field) +
                "' must be an integer, got " + describe(v));
  if (x < static_cast<double>(min) || x > static_cast<double>(max))
    throw Error(std::string(origin) + ": field '" + std::string(field) + "' is " + describe(v) +
                "; allowed: " + std::to_string(min) + " to " + std::to_string(max));
  return static_cast<long long>(x);
}

namespace {
std::string joined(std::span<const std::string_view> words) {
  std::string out;
  for (std::string_view w : words) out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}
}  // namespace

std::string shown_text(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (char c : text.substr(0, max_bytes))
    out += is_control(static_cast<unsigned char>(c)) ? '?' : c;
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::string choice_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                         std::initializer_list<std::string_view> allowed, bool required) {
  return choice_field(obj, field, origin, std::span(allowed.begin(), allowed.size()), required);
}

std::string choice_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                         std::span<const std::string_view> allowed, bool required) {
  std::string value = string_field(obj, field, origin, required);
  if (value.empty() && !required) return value;  // absent, null or "": the caller's default
  for (std::string_view a : allowed)
    if (value == a) return value;
  throw Error(std::string(origin) + ": field '" + std::string(field) + "' is '" + value +
              "'; allowed: " + joined(allowed));
}

void check_known_fields(const nlohmann::json& obj, std::string_view origin,
                        std::initializer_list<std::string_view> known) {
  for (const auto& item : obj.items()) {
    bool found = false;
    for (std::string_view k : known) found = found || item.key() == k;
    if (found) continue;
    throw Error(std::string(origin) + ": unknown field '" + shown_text(item.key()) +
                "'; allowed: " + joined(std::span(known.begin(), known.size())));
  }
}

std::vector<std::string> string_list_field(const nlohmann::json& obj, std::string_view field,
                                           std::string_view origin) {
  std::vector<std::string> out;
  if (!has_field(obj, field)) return out;
  const nlohmann::json& a = obj.at(std::string(field));
  if (!a.is_array())
    throw Error(std::string(origin) + ": field '" + std::string(field) + "' must be a list");
  for (const auto& v : a) {
    if (!v.is_string())
      throw Error(std::string(origin) + ": field '" + std::string(field) +
                  "' must list strings, got " + v.dump());
    out.push_back(v.get<std::string>());
  }
  return out;
}

bool bool_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                bool fallback) {
  if (!has_field(obj, field)) return fallback;
  const nlohmann::json& v = obj.at(std::string(field));
  if (!v.is_boolean())
    throw Error(std::string(origin) + ": field '" + std::string(field) +
                "' must be true or false, got " + describe(v));
  return v.get<bool>();
}

std::string string_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                         bool required) {
  auto it = obj.find(std::string(field));
  if (it == obj.end() || it->is_null()) {
    if (required)
      throw Error(std::string(origin) + ": field '" + std::string(field) + "' is missing");
    return {};
  }
  if (!it->is_string())
    throw Error(std::string(origin) + ": field '" + std::string(field) +
                "' must be a string, got " + describe(*it));
  std::string value = it->get<std::string>();
  // Names and sources are shown in terminals and pages: never a control character.
  for (unsigned char c : value)
    if (is_control(c))
      throw Error(std::string(origin) + ": field '" + std::string(field) +
                  "' holds a control character (code " + std::to_string(int(c)) +
                  "); names and sources are plain text");
  return value;
}

}  // namespace tilecast::detail
