#include "args.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "tilecast/closest_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast::cli {

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags,
           const std::vector<std::string>& switches)
    : argv_(argv) {
  auto known = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::string value;
    const auto eq = name.find('=');
    const bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (known(switches, name)) {
      if (inline_value) throw Error("flag --" + name + " takes no value");
      values_[name] = "1";
    } else if (known(flags, name)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw Error("flag --" + name + " needs a value");
        value = argv[++i];
      }
      values_[name] = value;
      repeated_[name].push_back(value);
    } else {
      std::string all;
      std::vector<std::string> names;
      for (const auto& f : flags) all.append(" --").append(f), names.push_back("--" + f);
      for (const auto& s : switches) all.append(" --").append(s), names.push_back("--" + s);
      const std::string close = did_you_mean(a.substr(0, a.find('=')), names);
      throw Error("unknown flag --" + name + (close.empty() ? "" : " (" + close + ")") +
                  "; allowed:" + (all.empty() ? " none" : all));
    }
  }
}

bool Args::has(const std::string& name) const { return values_.count(name) != 0; }

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> Args::all(const std::string& name) const {
  auto it = repeated_.find(name);
  return it == repeated_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::require(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error("missing required flag --" + name);
  return it->second;
}

std::int64_t Args::integer(const std::string& name, std::int64_t fallback, std::int64_t min,
                           std::int64_t max) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < min || v > max)
    throw Error("--" + name + " is '" + s + "'; allowed: an integer from " + std::to_string(min) +
                " to " + std::to_string(max));
  return v;
}

double parse_number(const std::string& flag, const std::string& text, const std::string& what) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v))
    throw Error("--" + flag + ": '" + text.substr(0, 40) + "' is not a number" +
                (what.empty() ? "" : " (" + what + ")"));
  return v;
}

double Args::real(const std::string& name, const std::string& what) const {
  return parse_number(name, require(name), what);
}

}  // namespace tilecast::cli
