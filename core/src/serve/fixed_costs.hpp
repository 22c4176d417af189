// A serving engine's costs beyond its model's kernels (core/data/engines/serving.json): the
// sampler's pass over the logits each step, the prompt's tokenisation for a served request,
// and the host's per-step and per-request work (an assumption, stated in the file).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/precision.hpp"

namespace tilecast::detail {

struct ServingFixedCosts {
  double sampling_logits_bytes = 4;  // per logit the sampler reads (FP32)
  double sampling_passes = 1;        // reads of each logits row per step
  double tokenize_tokens_per_s = 0;  // the API server's tokeniser
  double host_ms_per_step = 0;       // assumption: hidden behind the GPU
  double host_ms_per_request = 0;    // assumption: hidden behind the GPU
  // How the published runs of an architecture came out in docs/serving-checks.md, said beside
  // that architecture's serving forecasts (serve/serving_caveats.hpp): architecture, note.
  std::vector<std::pair<std::string, std::string>> checks_by_architecture;
  // How the published loaded runs came out ("checks_loaded"), said beside every loaded forecast.
  std::string checks_loaded;
  // How the published runs of top-k mixtures of experts came out ("checks_mixtures"), said beside
  // every serving forecast of one.
  std::string checks_mixtures;
  // How the published first-token times of short prompts came out ("checks_short_prompt"), said
  // beside every static forecast of a prompt of kShortPromptTokens or fewer.
  std::string checks_short_prompt;
};

// The longest prompt checks_short_prompt is said beside (the checked prompts are 128 tokens).
inline constexpr std::int64_t kShortPromptTokens = 256;

const ServingFixedCosts& serving_fixed_costs();  // the embedded file, read once

// core/data/engines/serving.json, parsed once: every serving rule that reads the engines' data
// (these costs, trtllm-bench's batch limits, vLLM's per-GPU defaults) reads this object.
inline constexpr const char* kServingEnginesPath = "core/data/engines/serving.json";
const nlohmann::json& serving_engines_json();

// One step's sampling of `seqs` sequences over a `vocab`-token vocabulary: reading their logits
// rows at `stream_bw_gbps` (a streaming kernel's rate, forecast/kernel_times.hpp,
// streaming_bw_gbps; never faster than the FP32 compute), plus the host's per-step work.
double sampling_step_ms(const GpuSpec& gpu, double stream_bw_gbps, std::int64_t seqs,
                        std::int64_t vocab);

// A served request's time before it can be scheduled: its prompt's tokenisation and the host's
// per-request work.
double request_host_ms(std::int64_t prompt_tokens);

}  // namespace tilecast::detail
