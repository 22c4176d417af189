// The workload words: the mode names, their one parser (shared by the CLI and the
// JSON API), and the query/key lengths each mode implies.
#include <string>

#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast {

namespace {

constexpr EnumName<Mode> kModes[] = {{"training", Mode::training},   {"train", Mode::training},
                                     {"inference", Mode::inference}, {"inf", Mode::inference},
                                     {"prefill", Mode::prefill},     {"decode", Mode::decode}};

constexpr EnumName<FinetuneMethod> kFinetuneMethodNames[] = {{"full", FinetuneMethod::full},
                                                             {"lora", FinetuneMethod::lora},
                                                             {"qlora", FinetuneMethod::qlora}};
constexpr EnumName<LoraTargets> kLoraTargetNames[] = {{"attention", LoraTargets::attention},
                                                      {"all_linear", LoraTargets::all_linear}};

constexpr EnumName<MasterWeights> kMasterWeightsNames[] = {{"fp32", MasterWeights::fp32},
                                                           {"half", MasterWeights::half}};

}  // namespace

EnumNames<MasterWeights> master_weights_names() { return kMasterWeightsNames; }
std::string_view master_weights_name(MasterWeights m) {
  return enum_name(master_weights_names(), m);
}
MasterWeights parse_master_weights(std::string_view word) {
  return parse_enum(master_weights_names(), word, "master weights");
}

EnumNames<FinetuneMethod> finetune_method_names() { return kFinetuneMethodNames; }
EnumNames<LoraTargets> lora_target_names() { return kLoraTargetNames; }
std::string_view finetune_method_name(FinetuneMethod m) {
  return enum_name(finetune_method_names(), m);
}
std::string_view lora_targets_name(LoraTargets t) { return enum_name(lora_target_names(), t); }

EnumNames<Mode> mode_names() { return kModes; }

std::string_view mode_name(Mode m) { return enum_name(mode_names(), m); }

Mode parse_mode(std::string_view word) { return parse_enum(mode_names(), word, "a mode"); }

Workload make_workload(Mode mode, std::int64_t batch, std::int64_t seq, std::int64_t cache_len) {
  Workload w;
  w.mode = mode;
  w.batch = batch;
  w.query_len = mode == Mode::decode ? 1 : seq;
  // decode: the new token attends to the cache and to itself
  w.context_len = mode == Mode::decode ? (cache_len > 0 ? cache_len : seq) + 1 : seq;
  return w;
}

}  // namespace tilecast
