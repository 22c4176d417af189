// The median of a list of numbers (the mean of the middle two for an even count; 0 for none):
// the evaluations' and trainers' summary statistic, written once.
#pragma once

#include <algorithm>
#include <vector>

namespace tilecast::detail {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace tilecast::detail
