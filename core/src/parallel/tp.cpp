// Megatron tensor parallelism (Shoeybi et al. 2019): attention heads and the MLP's inner width
// split over the tp GPUs (column-parallel q/k/v and up projections, row-parallel output and
// down projections), the vocabulary split for the embedding and the head; norms, residuals and
// dropout replicated. One all-reduce of the hidden states after each row-parallel linear in
// forward (Megatron's g) and one of the input gradient before each column-parallel group in
// backward (f); the vocabulary-parallel embedding all-reduces its output, the head its input
// gradient. The graph's blocks mark the linears (TpSplit), so every builder gets it.
#include <string>

#include "common/checked.hpp"
#include "parallel/parallel.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {
namespace {

bool kv_compatible(std::int64_t kv_heads, int tp) {
  return kv_heads % tp == 0 || tp % kv_heads == 0;
}

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

std::vector<int> valid_tps(const ModelConfig& model) {
  std::vector<int> out;
  for (std::int64_t t = 1; t <= model.num_heads && t <= 1024; ++t)
    if (model.num_heads % t == 0 && kv_compatible(model.num_kv_heads, int(t)))
      out.push_back(int(t));
  return out;
}

ModelConfig shard_model(const ModelConfig& model, int tp) {
  if (tp < 1) throw Error("tp must be a positive integer, got " + std::to_string(tp));
  if (tp == 1) return model;
  if (model.num_heads % tp != 0 || !kv_compatible(model.num_kv_heads, tp))
    throw Error("tp " + std::to_string(tp) + " does not divide " + model.name + "'s " +
                std::to_string(model.num_heads) + " attention heads" +
                (model.num_kv_heads != model.num_heads
                     ? " (" + std::to_string(model.num_kv_heads) + " key/value heads)"
                     : std::string()) +
                "; valid tp: " + list(valid_tps(model)));
  ModelConfig s = model;
  s.num_heads = model.num_heads / tp;
  // each key/value head replicated on tp / kv_heads GPUs when tp exceeds them
  s.num_kv_heads = model.num_kv_heads % tp == 0 ? model.num_kv_heads / tp : 1;
  s.intermediate_size = ceil_div(model.intermediate_size, tp);
  // experts: every rank holds every expert with its inner width split, like a dense MLP
  s.expert_intermediate_size = ceil_div(model.expert_intermediate_size, tp);
  s.shared_expert_intermediate_size = ceil_div(model.shared_expert_intermediate_size, tp);
  s.vocab_size = ceil_div(model.vocab_size, tp);
  return s;
}

TpTraffic tp_traffic(const GraphOp& op) {
  if (op.phase != Phase::forward) return {};
  switch (op.tp) {
    case TpSplit::none: return {};
    case TpSplit::row:
    case TpSplit::vocab_embedding: return {op.tp_elements, 0};
    case TpSplit::column:
    case TpSplit::vocab_head: return {0, op.tp_elements};
  }
  return {};
}

}  // namespace tilecast::detail
