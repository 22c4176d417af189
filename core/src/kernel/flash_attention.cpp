// FlashAttention kernels forecast from their authors' published throughputs
// (core/data/engines/flash_attention.json; docs/megatron.md): time = FLOPs / (dense tensor peak
// x max_efficiency x s / (s + s_half)), at least the roofline of the FLOPs and the bytes.
#include "kernel/flash_attention.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/embedded_data.hpp"
#include "tilecast/error.hpp"

namespace tilecast::detail {
namespace {

constexpr const char* kPath = "core/data/engines/flash_attention.json";

struct Generation {
  std::string kernel;
  std::vector<std::string> architectures;
  double forward = 0, backward = 0;
  bool assumed = false;
  std::string source;
};

struct Table {
  double s_half = 0;
  std::vector<Generation> generations;
};

double fraction(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number())
    throw Error(std::string(kPath) + ": field '" + key + "' must be a number");
  const double v = j[key].get<double>();
  if (!(v > 0 && v <= 1))
    throw Error(std::string(kPath) + ": field '" + key + "' must be in (0, 1], got " +
                std::to_string(v));
  return v;
}

Table load() {
  const std::string_view text = embedded::find(kPath);
  if (text.empty()) throw Error(std::string(kPath) + " was not built in");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error(std::string(kPath) + ": not valid JSON");
  Table t;
  if (!j.contains("s_half_tokens") || !j["s_half_tokens"].is_number() ||
      !(j["s_half_tokens"].get<double>() >= 0))
    throw Error(std::string(kPath) + ": field 's_half_tokens' must be a number >= 0");
  t.s_half = j["s_half_tokens"].get<double>();
  if (!j.contains("generations") || !j["generations"].is_array())
    throw Error(std::string(kPath) + ": field 'generations' must be an array");
  for (const auto& g : j["generations"]) {
    Generation x;
    x.kernel = g.value("kernel", "");
    x.forward = fraction(g, "forward_max_efficiency");
    x.backward = fraction(g, "backward_max_efficiency");
    x.assumed = g.value("assumed", false);
    x.source = g.value("source", "");
    if (g.contains("architectures") && g["architectures"].is_array())
      for (const auto& a : g["architectures"])
        if (a.is_string()) x.architectures.push_back(a.get<std::string>());
    if (x.kernel.empty() || x.source.empty() || x.architectures.empty())
      throw Error(std::string(kPath) + ": every generation needs kernel, architectures, source");
    for (const std::string& a : x.architectures)
      for (const Generation& y : t.generations)
        if (std::find(y.architectures.begin(), y.architectures.end(), a) != y.architectures.end())
          throw Error(std::string(kPath) + ": architecture '" + a + "' is in two generations");
    t.generations.push_back(std::move(x));
  }
  return t;
}

const Table& table() {
  static const Table t = load();
  return t;
}

// The generation that lists the GPU's architecture, or none.
const Generation* generation_of(const GpuSpec& gpu) {
  for (const Generation& g : table().generations)
    if (std::find(g.architectures.begin(), g.architectures.end(), gpu.architecture) !=
        g.architectures.end())
      return &g;
  return nullptr;
}

}  // namespace

std::optional<FlashForward> flash_forward(const GpuSpec& gpu, DataType dtype) {
  if (dtype != DataType::fp16 && dtype != DataType::bf16) return std::nullopt;
  if (!(gpu.peak_tflops_of(dtype, ComputeUnit::tensor) > 0)) return std::nullopt;
  const Generation* gen = generation_of(gpu);
  if (!gen) return std::nullopt;
  return FlashForward{gen->forward, table().s_half};
}

FlashAttentionTime flash_attention_time(const GpuSpec& gpu, DataType dtype, double flops,
                                        double bytes, double keys, bool backward) {
  const Generation* gen = generation_of(gpu);
  if (!gen)
    throw Error(
        "FlashAttention does not run on " + gpu.name + " (" +
        (gpu.architecture.empty() ? std::string("architecture unknown") : gpu.architecture) +
        "; FlashAttention-2 needs Ampere or newer); use --attention fused-softmax "
        "(API: \"attention\": \"fused-softmax\")");
  const double peak_tflops = gpu.peak_tflops_of(dtype, ComputeUnit::tensor);
  if (!(peak_tflops > 0))
    throw Error(gpu.name + " states no " + std::string(dtype_name(dtype)) +
                " tensor peak for FlashAttention");
  FlashAttentionTime r;
  const double max_eff = backward ? gen->backward : gen->forward;
  r.efficiency = flash_efficiency(max_eff, keys, table().s_half);
  r.kernel = gen->kernel;
  r.assumed = gen->assumed;
  r.source = gen->source;
  const double compute_ms = flops / (peak_tflops * 1e12 * r.efficiency) * 1e3;
  const double roof_ms =
      std::max(flops / (peak_tflops * 1e12), bytes / (gpu.mem_bw_gbps * 1e9)) * 1e3;
  r.ms = std::max(compute_ms, roof_ms);
  return r;
}

}  // namespace tilecast::detail
