// Expert parallelism with attention data parallelism for serving (header).
#include "serve/expert_parallel.hpp"

#include <string>

#include "tilecast/error.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

ModelConfig expert_shard(const ModelConfig& model, int ep, int tp) {
  if (ep < 1 || ep > 1024) throw Error("ep must be 1 to 1024 GPUs");
  if (ep == 1) return model;
  if (model.num_experts < 2 || model.experts_per_token < 1)
    throw Error("ep " + std::to_string(ep) + ": " + model.name +
                " has no routed experts to spread over GPUs (expert parallelism serves a top-k "
                "mixture of experts; a dense model takes tp)");
  if (model.num_experts % ep != 0)
    throw Error("ep " + std::to_string(ep) + " does not divide " + model.name + "'s " +
                std::to_string(model.num_experts) + " routed experts");
  if (tp != 1)
    throw Error("ep " + std::to_string(ep) + " with tp " + std::to_string(tp) +
                ": expert parallelism here runs each GPU's attention whole (attention data "
                "parallel), so tp must be 1");
  ModelConfig s = model;
  s.expert_shards = ep;
  return s;
}

RoutedExpertParams routed_expert_params(const GpuSpec& gpu, const ModelConfig& model,
                                        const ServingTypes& t) {
  // 64 tokens an expert: every expert active (as quantized_param_count counts them)
  const std::int64_t tokens = 64 * std::max<std::int64_t>(1, model.num_experts);
  const OpGraph g =
      build_gpu_graph(gpu, model, make_workload(Mode::decode, tokens, 1, 1), Engine::fused);
  RoutedExpertParams n;
  for (const GraphSection& s : g.sections)
    for (const GraphOp& o : s.ops)
      if (o.routed_expert && o.phase == Phase::forward) {
        const double p = o.param_elements * double(s.count);
        n.all += p;
        if (is_quantized_linear(s, o, t)) n.quantized += p;
      }
  return n;
}

std::int64_t moe_layer_count(const ModelConfig& model) {
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < model.num_layers; ++i) n += is_moe_layer(model, i) ? 1 : 0;
  return n;
}

double dispatch_bytes(const ModelConfig& model, std::int64_t tokens, DataType act) {
  return double(tokens) * double(model.experts_per_token) * double(model.hidden_size) *
         dtype_bytes(act);
}

}  // namespace tilecast::detail
