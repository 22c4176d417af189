// FNV-1a 64 of the training inputs, recorded in the weights so stale weights are detected.
#include <cstdio>

#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/train.hpp"
#include "train/fnv.hpp"

namespace tilecast {

std::string train_config_text(const TrainConfig& c);

std::uint64_t training_hash(const std::vector<TrainText>& csvs,
                            const std::vector<TrainText>& device_files, const TrainConfig& config) {
  std::uint64_t h = train::kFnvOffset;
  for (const auto* list : {&csvs, &device_files})
    for (const TrainText& t : *list) {
      train::fnv1a_mix(h, t.name);
      train::fnv1a_mix(h, t.text);
    }
  // A device file takes facts from its GPU catalog entry (architecture, residency, issue slots,
  // the vendor-stated DRAM efficiency) that the features use: hash the parsed specs too.
  for (const TrainText& d : device_files) {
    try {
      train::fnv1a_mix(h, train::hashed_gpu_spec(parse_gpu_spec(d.text, d.name)));
    } catch (const Error&) {
      // a file the trainer cannot parse fails it anyway; its text is hashed above
    }
  }
  train::fnv1a_mix(h, train_config_text(config));
  return h;
}

}  // namespace tilecast
