// Capacity planning for serving (docs/serving-load.md, "Capacity"): the fewest GPUs (or
// dollars) that serve a request rate within a TTFT and TPOT SLO at P99, over GPUs and tensor
// parallelism (within a node, and across nodes for a model no node's layout holds), each
// replica's latency from the serving simulation (tilecast/serving_load.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/serving_load.hpp"

namespace tilecast {

struct CapacityRequest {
  // prompt, output (or a trace's lengths), precision, predictor, seed, scheduler limits; its
  // arrivals are Poisson at qps / replicas per replica.
  LoadRequest load;
  double qps = 0;                           // the whole service's requests per second
  double slo_ttft_ms = 0, slo_tpot_ms = 0;  // at P99; both required
  int max_gpus = 64;                        // replicas x tp at most
  std::vector<double> price_per_gpu_hour;   // empty, or one per GPU (or one for all)
};

struct CapacityOption {
  std::string gpu;  // catalog id (or name)
  int tp = 1;
  int ep = 1;        // a mixture of experts' expert-parallel GPUs (attention data parallel; tp 1)
  int replicas = 0;  // 0: no count up to max_gpus meets the SLO
  int gpus = 0;
  bool meets = false;
  double ttft_p99_ms = 0, tpot_p99_ms = 0;  // at that count (the largest tried when none meets)
  double tokens_per_gpu_hour = 0;
  double price_per_hour = 0, tokens_per_dollar = 0;  // 0 without a price
  std::string why;  // when not meeting: does not fit, no interconnect, SLO missed at max_gpus
  std::optional<Footing> footing;  // what its simulations stood on; none when none ran
  // The best option's 80% band of its replicas: the fewest meeting the SLO with every step at the
  // whole-model band's fast and at its slow edge (docs/serving-load.md, "Capacity"); none on the
  // other options, for the roofline predictor, or past the work budget (the caveats say which).
  std::optional<std::pair<int, int>> replicas_band;
};

struct CapacityPlan {
  CapacityRequest request;
  std::vector<CapacityOption> options;  // meeting first, cheapest first; then the rest
  int simulations = 0;
  std::vector<std::string> caveats;
};

// `progress` (may be empty) is called after each simulation with a line saying what ran.
CapacityPlan plan_capacity(const std::vector<GpuSpec>& gpus, const ModelConfig& model,
                           const CapacityRequest& r,
                           const std::function<void(const std::string&)>& progress = {});

std::string capacity_plan_to_json(const ModelConfig& model, const CapacityPlan& p);

}  // namespace tilecast
