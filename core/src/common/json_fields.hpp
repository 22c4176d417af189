// Reading validated fields out of parsed JSON: each error names the origin
// (file or form), the field and the allowed range.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilecast::detail {

// Parses `text`, throwing Error("<origin>: not valid JSON: ...") on failure.
// Depth and size are bounded so hostile input cannot exhaust the stack.
nlohmann::json parse_json(std::string_view text, std::string_view origin);

bool has_field(const nlohmann::json& obj, std::string_view field);
double number_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                    double min, double max);
// A number above 0 and at most `max` (a scale, a rate).
double positive_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                      double max);
long long integer_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                        long long min, long long max);
std::string string_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                         bool required = true);
// true or false; `fallback` when absent or null.
bool bool_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                bool fallback);
// A string that must be one of `allowed` (empty when absent, null or empty and not required); the
// error lists them, so the words are written once, where they are read.
std::string choice_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                         std::span<const std::string_view> allowed, bool required = true);
std::string choice_field(const nlohmann::json& obj, std::string_view field, std::string_view origin,
                         std::initializer_list<std::string_view> allowed, bool required = true);
// Text a user typed, for an error message: its first `max_bytes` bytes (then "..."), each control
// character (a newline, an ANSI escape: it would reach terminals and pages) shown as '?'.
std::string shown_text(std::string_view text, std::size_t max_bytes = 40);
// Refuses a key of `obj` that is not in `known`, naming it (shown_text) and listing them.
void check_known_fields(const nlohmann::json& obj, std::string_view origin,
                        std::initializer_list<std::string_view> known);
// A list of strings (empty when the field is absent); throws naming the field for another type.
std::vector<std::string> string_list_field(const nlohmann::json& obj, std::string_view field,
                                           std::string_view origin);

// The fields the parsers read on this thread while a sink is set: each numeric one with its
// origin and allowed range, and every name asked for (has_field: the optional ones). The tests
// and the benchmark that set every numeric field at its maximum take their list from here, the
// parsers' own names and limits, so a new field is not forgotten
// (tests/support/request_maxima.hpp).
struct NumericFieldRead {
  std::string origin, field;
  double min = 0, max = 0;
  bool integer = false;
};
struct FieldReads {
  std::vector<NumericFieldRead> numeric;
  std::vector<std::string> asked;
};
void observe_field_reads(FieldReads* sink);  // nullptr: stop

}  // namespace tilecast::detail
