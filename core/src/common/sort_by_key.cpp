#include "common/sort_by_key.hpp"

#include <algorithm>
#include <numeric>

namespace tilecast::detail {

std::vector<std::size_t> ascending_order(const std::vector<std::string_view>& keys) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  return order;
}

}  // namespace tilecast::detail
