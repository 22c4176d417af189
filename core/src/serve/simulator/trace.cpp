// Request traces (tilecast/serving_load.hpp): CSV with a header, or a JSON array of requests.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_fields.hpp"
#include "tilecast/error.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast {
namespace {

constexpr double kMaxArrivalMs = 1e12;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t pos = 0;;) {
    const std::size_t comma = line.find(',', pos);
    out.push_back(trim(line.substr(pos, comma == std::string_view::npos ? comma : comma - pos)));
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
}

double number(std::string_view cell, const std::string& where, double min, double max,
              bool integer) {
  // strtod, not std::from_chars: Emscripten's libc++ has no floating-point from_chars (the WASM
  // build fails). Decimal text only (no hex, no sign-less "inf"/"nan" spellings pass isfinite).
  const std::string text(cell);
  char* end = nullptr;
  const bool decimal = !text.empty() && text.find_first_of("xXpP") == std::string::npos;
  const double v = decimal ? std::strtod(text.c_str(), &end) : NAN;
  const bool ok = decimal && end == text.c_str() + text.size() && std::isfinite(v) &&
                  (!integer || std::floor(v) == v);
  const std::string shown = detail::shown_text(cell);  // typed text, never a control character
  if (!ok)
    throw Error(where + " is '" + shown + "'; expected " + (integer ? "an integer" : "a number"));
  if (v < min || v > max)
    throw Error(
        where + " is " + shown + "; allowed: " +
        (integer ? std::to_string(std::int64_t(min)) + " to " + std::to_string(std::int64_t(max))
                 : "0 to 1e12 ms"));
  return v;
}

std::vector<TraceRequest> parse_csv(std::string_view text, const std::string& origin) {
  std::vector<TraceRequest> out;
  int col_arrival = -1, col_prompt = -1, col_output = -1;
  std::size_t columns = 0;
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const auto cells = split(line);
    const std::string at = origin + " line " + std::to_string(line_no);
    if (columns == 0) {  // the header
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] == "arrival_ms") col_arrival = int(i);
        if (cells[i] == "prompt") col_prompt = int(i);
        if (cells[i] == "output") col_output = int(i);
      }
      if (col_arrival < 0 || col_prompt < 0 || col_output < 0)
        throw Error(at + ": the header must name the columns arrival_ms, prompt and output");
      columns = cells.size();
      continue;
    }
    if (cells.size() != columns)
      throw Error(at + ": " + std::to_string(cells.size()) + " fields; the header has " +
                  std::to_string(columns));
    if (out.size() >= std::size_t(kMaxLoadRequests))
      throw Error(at + ": more than " + std::to_string(kMaxLoadRequests) + " requests");
    TraceRequest r;
    r.arrival_ms = number(cells[std::size_t(col_arrival)], at + ": field 'arrival_ms'", 0,
                          kMaxArrivalMs, false);
    r.prompt = std::int64_t(number(cells[std::size_t(col_prompt)], at + ": field 'prompt'", 1,
                                   kMaxServingTokens, true));
    r.output = std::int64_t(number(cells[std::size_t(col_output)], at + ": field 'output'", 1,
                                   kMaxServingTokens, true));
    out.push_back(r);
  }
  if (columns == 0) throw Error(origin + ": no header line (arrival_ms,prompt,output)");
  return out;
}

std::vector<TraceRequest> parse_json_trace(std::string_view text, const std::string& origin) {
  const nlohmann::json j = detail::parse_json("{\"requests\":" + std::string(text) + "}", origin);
  const nlohmann::json& list = j["requests"];
  if (!list.is_array()) throw Error(origin + ": expected an array of requests");
  if (list.size() > std::size_t(kMaxLoadRequests))
    throw Error(origin + ": " + std::to_string(list.size()) + " requests; at most " +
                std::to_string(kMaxLoadRequests));
  std::vector<TraceRequest> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = origin + ": request " + std::to_string(i);
    if (!list[i].is_object()) throw Error(at + ": expected an object");
    TraceRequest r;
    r.arrival_ms = detail::number_field(list[i], "arrival_ms", at, 0, kMaxArrivalMs);
    r.prompt = detail::integer_field(list[i], "prompt", at, 1, kMaxServingTokens);
    r.output = detail::integer_field(list[i], "output", at, 1, kMaxServingTokens);
    out.push_back(r);
  }
  return out;
}

}  // namespace

std::vector<TraceRequest> parse_trace(std::string_view text, std::string_view origin_view) {
  const std::string origin(origin_view.empty() ? "trace" : origin_view);
  const std::string_view body = trim(text);
  const std::size_t first = body.find_first_not_of(" \t\r\n");
  std::vector<TraceRequest> out = first != std::string_view::npos && body[first] == '['
                                      ? parse_json_trace(body, origin)
                                      : parse_csv(text, origin);
  if (out.empty()) throw Error(origin + ": no requests");
  // in arrival order (a stable sort keeps the file's order among equal arrivals)
  std::stable_sort(out.begin(), out.end(), [](const TraceRequest& a, const TraceRequest& b) {
    return a.arrival_ms < b.arrival_ms;
  });
  return out;
}

}  // namespace tilecast
