// Closest names (header).
#include "tilecast/closest_names.hpp"

#include <algorithm>

#include "common/name_key.hpp"

namespace tilecast {

namespace {

// Optimal string alignment distance: edits, each a character inserted, deleted, replaced, or
// two neighbours swapped.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t v = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        v = std::min(v, at(i - 2, j - 2) + 1);
      at(i, j) = v;
    }
  return at(n, m);
}

}  // namespace

std::vector<std::string> closest_names(std::string_view typed,
                                       const std::vector<std::string>& names, std::size_t most) {
  constexpr std::size_t kLongest = 64;  // a longer word is no typo of a name
  const std::string key = detail::name_key(typed);
  if (key.empty() || key.size() > kLongest) return {};
  const std::size_t within = std::max<std::size_t>(1, key.size() / 3), far = within + 1;
  std::vector<std::size_t> distance(names.size(), far);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string k = detail::name_key(names[i]);
    if (key.size() >= 3 && k.starts_with(key))
      distance[i] = 0;  // a name cut short: the likeliest
    else if (k.size() <= kLongest + within)
      distance[i] = std::min(far, edit_distance(key, k));
  }
  // closest first, in the list's order among equals (the catalogs' lists are sorted by id)
  std::vector<std::string> out;
  for (std::size_t d = 0; d <= within; ++d)
    for (std::size_t i = 0; i < names.size() && out.size() < most; ++i)
      if (distance[i] == d && std::find(out.begin(), out.end(), names[i]) == out.end())
        out.push_back(names[i]);
  return out;
}

std::string or_list(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& names) {
  const std::vector<std::string> close = closest_names(typed, names);
  return close.empty() ? "" : "did you mean " + or_list(close) + "?";
}

}  // namespace tilecast
