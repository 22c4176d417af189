// The decode attention kernel's reading of the K/V cache (serve/decode_attention.hpp).
#include "serve/decode_attention.hpp"

#include "tilecast/enum_names.hpp"

namespace tilecast {
namespace {

constexpr EnumName<DecodeAttention> kDecodeAttentionNames[] = {
    {"grouped", DecodeAttention::grouped}, {"per-query-head", DecodeAttention::per_query_head}};

}  // namespace

EnumNames<DecodeAttention> decode_attention_names() { return kDecodeAttentionNames; }
std::string_view decode_attention_name(DecodeAttention a) {
  return enum_name(decode_attention_names(), a);
}
DecodeAttention parse_decode_attention(std::string_view word) {
  return parse_enum(decode_attention_names(), word, "a decode attention kernel");
}

namespace detail {

double decode_kv_reads(DecodeAttention a, const ModelConfig& model) {
  if (a == DecodeAttention::grouped || model.num_kv_heads < 1) return 1;
  return double(model.num_heads) / double(model.num_kv_heads);
}

std::string decode_attention_caveat(DecodeAttention a, const ModelConfig& model) {
  if (a == DecodeAttention::grouped) return {};
  const double reads = decode_kv_reads(a, model);
  return "Decode attention per query head: every query head's thread blocks read its K/V head's "
         "cache (TensorRT-LLM's masked multi-head attention kernel before XQA, v0.8), so a decode "
         "step reads the K/V cache " +
         (reads > 1 ? std::to_string(int(reads + 0.5)) + " times (query heads per K/V head)"
                    : std::string("once (every query head has its own K/V head)")) +
         " where a grouped-query kernel reads it once; prefill unchanged.";
}

}  // namespace detail
}  // namespace tilecast
