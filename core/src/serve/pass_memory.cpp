// Memory of a single-GPU inference, prefill or decode pass (forecast_model; docs/model-forecast.md
// "Memory"): the serving rules (memory.cpp) at the pass's shape. The KV cache holds no token in
// inference (a forward over whole sequences keeps no cache), the prompt in prefill and the cache
// plus the new token in decode; the activations are the prefill rule's at the pass's query
// length, and in decode eager/compiled scores against the whole cache (heads x context).
#include <algorithm>

#include "parallel/parallel.hpp"
#include "serve/memory.hpp"
#include "tilecast/error.hpp"
#include "tilecast/precision.hpp"

namespace tilecast::detail {
namespace {

std::int64_t cached_tokens(const Workload& w) {
  switch (w.mode) {
    case Mode::prefill: return w.query_len;
    case Mode::decode: return w.context_len;
    default: return 0;
  }
}

MemoryModel model_at_tp(const GpuSpec& gpu, const ModelConfig& model, double params,
                        const Workload& w, Engine engine, int tp) {
  const ModelConfig shard = shard_model(model, tp);
  ServingRequest r;
  r.prompt = w.query_len;
  r.tp = tp;
  r.dtype = w.dtype;
  r.engine = engine;
  MemoryModel m = serving_memory_model(gpu, shard, params, 0, r);  // a pass is not quantized
  if (w.mode == Mode::decode && engine != Engine::fused)
    m.activation_bytes_per_seq +=
        double(shard.num_heads) * double(w.context_len - w.query_len) * (dtype_bytes(w.dtype) + 4);
  return m;
}

}  // namespace

PassMemory pass_memory(const GpuSpec& gpu, const ModelConfig& model, const Workload& w,
                       Engine engine) {
  const double params =
      graph_param_count(build_op_graph(model, make_workload(Mode::inference, 1, 1)));
  const std::int64_t tokens = cached_tokens(w);
  const MemoryModel m = model_at_tp(gpu, model, params, w, engine, 1);
  PassMemory p;
  p.memory = m.at(w.batch, tokens);
  p.max_batch = m.max_batch(tokens);
  if (p.memory.fits) {
    p.tp_to_fit = 1;
    return p;
  }
  p.tp_to_fit = least_tp_to_fit(2, [&](int tp) {
    return model_at_tp(gpu, model, params, w, engine, tp).at(w.batch, tokens).fits;
  });
  return p;
}

}  // namespace tilecast::detail
