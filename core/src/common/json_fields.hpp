// Reading validated fields out of parsed JSON: each error names the origin
// (file or form), the field and the allowed range.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

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

}  // namespace tilecast::detail
