// The "cost" object of forecast responses given a price per GPU hour (issue 32 item 9): GPU time
// priced by gpu_time_cost (tilecast/mfu.hpp), per hour, per million tokens and per step.
#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "tilecast/mfu.hpp"

namespace tilecast::detail {

nlohmann::ordered_json cost_json(double price, std::int64_t gpus, double tokens_per_s,
                                 const char* tokens_counted) {
  nlohmann::ordered_json c;
  c["price_per_gpu_hour"] = price;
  c["gpus"] = gpus;
  c["per_hour"] = gpu_time_cost(price, gpus, 3.6e6);
  // a million tokens take 1e9 / tokens_per_s ms
  c["per_million_tokens"] =
      tokens_per_s > 0 ? nlohmann::ordered_json(gpu_time_cost(price, gpus, 1e9 / tokens_per_s))
                       : nlohmann::ordered_json(nullptr);
  c["tokens_counted"] = tokens_counted;
  return c;
}

void add_training_cost(nlohmann::ordered_json& cost, double price, std::int64_t gpus,
                       double step_ms, double tokens_per_step, double tokens) {
  cost["per_step"] = gpu_time_cost(price, gpus, step_ms);
  if (tokens > 0) {
    cost["tokens"] = tokens;
    cost["for_tokens"] = gpu_time_cost(price, gpus, step_ms * tokens / tokens_per_step);
  }
}

}  // namespace tilecast::detail
