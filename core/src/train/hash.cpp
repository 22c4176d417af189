// FNV-1a 64 of the training inputs, recorded in the weights so stale weights are detected.
#include <cstdio>

#include "tilecast/train.hpp"

namespace tilecast {
namespace {

void mix(std::uint64_t& h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= 0xff;
  h *= 1099511628211ull;
}

}  // namespace

std::string train_config_text(const TrainConfig& c);

std::uint64_t training_hash(const std::vector<TrainText>& csvs,
                            const std::vector<TrainText>& device_files, const TrainConfig& config) {
  std::uint64_t h = 14695981039346656037ull;
  for (const auto* list : {&csvs, &device_files})
    for (const TrainText& t : *list) {
      mix(h, t.name);
      mix(h, t.text);
    }
  mix(h, train_config_text(config));
  return h;
}

}  // namespace tilecast
