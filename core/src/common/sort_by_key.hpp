// Sorting a catalog's entries (GPUs, systems, models, learned-model manifests) by their id with
// one std::sort instantiation for all of them: sorting the large structs in place would
// instantiate std::sort's moves and swaps once per type, code the WASM build pays for in size.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace tilecast::detail {

// The positions of `keys` in ascending order (equal keys keep their order).
std::vector<std::size_t> ascending_order(const std::vector<std::string_view>& keys);

// Reorders `items` so that key(item) ascends; key returns something a string_view is made of.
template <class T, class Key>
void sort_by_key(std::vector<T>& items, Key key) {
  std::vector<std::string_view> keys;
  keys.reserve(items.size());
  for (const T& item : items) keys.emplace_back(key(item));
  std::vector<T> sorted;
  sorted.reserve(items.size());
  for (const std::size_t i : ascending_order(keys)) sorted.push_back(std::move(items[i]));
  items = std::move(sorted);
}

}  // namespace tilecast::detail
