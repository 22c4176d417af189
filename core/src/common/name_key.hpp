// How user-typed names match catalog and zoo entries: case-insensitive, ignoring
// spaces, '-', '_' and '.' ("H100 SXM" = "h100-sxm", "gpt3_27" = "GPT3-2.7").
#pragma once

#include <string>
#include <string_view>

namespace tilecast::detail {

inline std::string name_key(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '.') continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

}  // namespace tilecast::detail
