// Which names a user probably meant by one that matched nothing: the few closest by edit
// distance, so an error can say "did you mean ...?" instead of listing every name.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tilecast {

// Of `names`, compared as name_key()s, those that begin with `typed` (three characters or more),
// then those within a typo or two of it (insertions, deletions, substitutions and swaps of
// neighbours, at most a third of its length); closest first, then in their order, at most `most`.
std::vector<std::string> closest_names(std::string_view typed,
                                       const std::vector<std::string>& names, std::size_t most = 5);

// "a, b or c" (empty for none).
std::string or_list(const std::vector<std::string>& names);

// "did you mean a or b?" of closest_names(typed, names), or empty when none is close: the one
// wording every lookup's error uses.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& names);

}  // namespace tilecast
