// The words users type for each enum, written once: a table of {name, value} rows defined
// beside the enum's name and parse functions (a value's first row is its name, later rows its
// aliases). Parsing, printing and every "allowed: ..." list in errors and help text are built
// from these tables, so a new value is one row.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tilecast/comm.hpp"
#include "tilecast/error.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/precision.hpp"
#include "tilecast/system.hpp"

namespace tilecast {

enum class WeightFormat;     // tilecast/serving.hpp
enum class DecodeAttention;  // tilecast/serving.hpp
enum class Scheduler;        // tilecast/serving_load.hpp
enum class BatchLimits;      // tilecast/serving_load.hpp
enum class AttentionKernel;  // tilecast/megatron.hpp

template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

template <class E>
using EnumNames = std::span<const EnumName<E>>;

// The tables, each defined in the file that names its enum.
EnumNames<DataType> dtype_names();                    // kernel/precision.cpp
EnumNames<ComputeUnit> unit_names();                  // kernel/precision.cpp
EnumNames<Mode> mode_names();                         // graph/workload.cpp
EnumNames<Engine> engine_names();                     // graph/engines/engine.cpp
EnumNames<Predictor> predictor_names();               // forecast/kernel_forecast.cpp
EnumNames<Recompute> recompute_names();               // parallel/step.cpp
EnumNames<PipelineSchedule> schedule_names();         // parallel/step.cpp
EnumNames<Collective> collective_names();             // comm/registry.cpp
EnumNames<CommAlgorithm> comm_algorithm_names();      // comm/registry.cpp
EnumNames<LinkClass> link_class_names();              // comm/registry.cpp
EnumNames<CommFamily> comm_family_names();            // comm/registry.cpp
EnumNames<CommProtocol> comm_protocol_names();        // comm/registry.cpp
EnumNames<Topology> topology_names();                 // hw/system.cpp
EnumNames<WeightFormat> weight_format_names();        // serve/quantize.cpp
EnumNames<DecodeAttention> decode_attention_names();  // serve/decode_attention.cpp
EnumNames<Scheduler> scheduler_names();               // serve/simulator/simulate.cpp
EnumNames<BatchLimits> batch_limits_names();          // serve/simulator/batch_limits.cpp
EnumNames<FinetuneMethod> finetune_method_names();    // graph/workload.cpp
EnumNames<LoraTargets> lora_target_names();           // graph/workload.cpp
EnumNames<MasterWeights> master_weights_names();      // graph/workload.cpp
EnumNames<ExpertsImplementation> experts_implementation_names();  // model/model_config.cpp
EnumNames<AttentionKernel> attention_kernel_names();              // parallel/megatron_step.cpp

// The precisions a whole-model, serving or plan forecast takes (fp32 eager; fp16 and bf16 the
// whole pass, or autocast in training).
inline constexpr DataType kModelPrecisions[] = {DataType::fp32, DataType::fp16, DataType::bf16};
// The type of every kernel but the GEMMs when a model's GEMMs run in `t` (by DataType): itself
// for FP32, FP16 and BF16; FP32 for TF32; BF16 for FP8, INT8 and FP4 (TransformerEngine's FP8
// training and W8A8 / W4A4 serving keep norms, attention and activations in BF16).
inline constexpr DataType kActivationTypes[kDataTypeCount] = {
    DataType::fp32, DataType::fp32, DataType::fp16, DataType::bf16,
    DataType::bf16, DataType::bf16, DataType::bf16};
constexpr DataType activation_dtype(DataType t) { return kActivationTypes[static_cast<int>(t)]; }

// The precisions of a serving forecast (fp8: W8A8 on GPUs with FP8 tensor cores; fp4: W4A4,
// NVFP4 / MXFP4, on GPUs with FP4 tensor cores: Blackwell, CDNA 4).
inline constexpr DataType kServingPrecisions[] = {DataType::fp32, DataType::fp16, DataType::bf16,
                                                  DataType::fp8, DataType::fp4};
// The precisions of the megatron engine's training (mixed precision; fp8: TransformerEngine's
// FP8 GEMMs in a BF16 model).
inline constexpr DataType kMegatronPrecisions[] = {DataType::bf16, DataType::fp16, DataType::fp8};
// The engines of a single-GPU model forecast (fused is the serving engine's).
inline constexpr Engine kModelEngines[] = {Engine::eager, Engine::compiled};

// The methods a request's `finetune` names (full training is the request without it).
inline constexpr FinetuneMethod kFinetuneMethods[] = {FinetuneMethod::lora, FinetuneMethod::qlora};

// The value a word names, by its name or an alias; nullopt when none.
template <class E>
std::optional<E> find_enum(EnumNames<E> names, std::string_view word) {
  for (const auto& n : names)
    if (n.name == word) return n.value;
  return std::nullopt;
}

// A value's name: its first row ("?" when the table lacks it).
template <class E>
std::string_view enum_name(EnumNames<E> names, E value) {
  for (const auto& n : names)
    if (n.value == value) return n.name;
  return "?";
}

// Whether row `row` is the first of its value (a name, not an alias).
template <class E>
bool is_primary_name(EnumNames<E> names, std::size_t row) {
  for (std::size_t i = 0; i < row; ++i)
    if (names[i].value == names[row].value) return false;
  return true;
}

// Every value's name in table order joined by `sep` (no aliases): "tilecast|roofline".
template <class E>
std::string enum_names_joined(EnumNames<E> names, std::string_view sep) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (is_primary_name(names, i))
      s += (s.empty() ? "" : std::string(sep)) + std::string(names[i].name);
  return s;
}

// The names of `values`, in their order, joined by `sep`: "fp32, fp16, bf16".
template <class E, std::size_t N>
std::string enum_names_of(EnumNames<E> names, const E (&values)[N], std::string_view sep) {
  std::string s;
  for (E v : values) s += (s.empty() ? "" : std::string(sep)) + std::string(enum_name(names, v));
  return s;
}

// What an error lists after "allowed: ": every name with its aliases,
// "training (or train), inference (or inf), prefill, decode".
template <class E>
std::string allowed_enum_names(EnumNames<E> names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!is_primary_name(names, i)) continue;
    s += (s.empty() ? "" : ", ") + std::string(names[i].name);
    std::string aliases;
    for (std::size_t j = i + 1; j < names.size(); ++j)
      if (names[j].value == names[i].value)
        aliases += (aliases.empty() ? "" : ", ") + std::string(names[j].name);
    if (!aliases.empty()) s += " (or " + aliases + ")";
  }
  return s;
}

// The value a word names; otherwise throws Error "'WORD' is not WHAT; allowed: LIST"
// (what: "a mode", "a precision", ...).
template <class E>
E parse_enum(EnumNames<E> names, std::string_view word, std::string_view what) {
  if (auto v = find_enum(names, word)) return *v;
  throw Error("'" + std::string(word) + "' is not " + std::string(what) +
              "; allowed: " + allowed_enum_names(names));
}

}  // namespace tilecast
