// The first decode step's operators (header).
#include "serve/decode_operators.hpp"

#include "parallel/parallel.hpp"
#include "serve/quantize.hpp"
#include "serve/step.hpp"

namespace tilecast::detail {

std::vector<OperatorBound> decode_step_operators(const GpuSpec& gpu, const ModelConfig& model,
                                                 const ServingRequest& r, std::int64_t cached) {
  if (r.engine != Engine::fused) return {};
  const OpGraph g =
      serving_graph(gpu, shard_model(model, r.tp), make_workload(Mode::decode, r.batch, 1, cached),
                    r.engine, serving_types(gpu, r));
  StepClock clock(gpu, r.predictor, r.engine);
  ChargedMs charged;
  clock.fused_forward_ms(g, &charged);
  return operator_bounds(gpu, g, charged);
}

}  // namespace tilecast::detail
