// Text pieces printed from the API's answers (answer_text.hpp).
#include "answer_text.hpp"

#include <cstdio>
#include <string>

namespace tilecast::cli {

void print_cost(const nlohmann::ordered_json& j) {
  if (!j.contains("cost")) return;
  const auto& c = j["cost"];
  std::printf("  cost         %.4g per GPU hour x %lld GPUs = %.4g per hour",
              c["price_per_gpu_hour"].get<double>(), c["gpus"].get<long long>(),
              c["per_hour"].get<double>());
  if (c.contains("per_step")) std::printf("; %.4g per step", c["per_step"].get<double>());
  std::printf("\n");
  if (!c["per_million_tokens"].is_null())
    std::printf("               %.4g per million %s\n", c["per_million_tokens"].get<double>(),
                c["tokens_counted"].get<std::string>().c_str());
  if (c.contains("for_tokens"))
    std::printf("               %.4g for %.3g tokens\n", c["for_tokens"].get<double>(),
                c["tokens"].get<double>());
}

void print_utilization(const nlohmann::ordered_json& j) {
  if (!j.contains("mfu")) return;
  std::printf("  MFU          %10.1f %%   (%.1f model TFLOP/s per GPU of %.0f)\n",
              100 * j["mfu"].get<double>(), j["model_tflops_per_gpu"].get<double>(),
              j["peak_tflops"].get<double>());
}

void print_training_footer(const nlohmann::ordered_json& j, const char* unit) {
  const auto& m = j["memory"];
  std::printf("\nmemory per GPU (%s %d): %.2f GB of %.2f GB, %s\n", unit, m["stage"].get<int>(),
              m["total_gb"].get<double>(), m["capacity_gb"].get<double>(),
              m["fits"].get<bool>() ? "fits" : "does NOT fit");
  for (const char* k : {"weights_gb", "gradients_gb", "optimizer_gb", "activations_gb",
                        "workspace_gb", "context_gb"})
    std::printf("  %-15s %8.2f GB\n", k, m[k].get<double>());
  std::printf("\nassumptions\n");
  for (const auto& a : j["assumptions"]) std::printf("  - %s\n", a.get<std::string>().c_str());
  for (const auto& c : j["caveats"]) std::printf("\nnote: %s\n", c.get<std::string>().c_str());
}

void print_breakdown(const nlohmann::ordered_json& ms_by_kind, double total_ms, const char* where) {
  std::printf("\nbreakdown%s\n", where);
  for (const auto& [kind, ms] : ms_by_kind.items())
    std::printf("  %-14s %10.3f ms  %5.1f%%\n", kind.c_str(), ms.get<double>(),
                100 * ms.get<double>() / total_ms);
}

}  // namespace tilecast::cli
