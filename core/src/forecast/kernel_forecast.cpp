#include "tilecast/kernel_forecast.hpp"

#include <algorithm>
#include <cmath>

#include "learned/features.hpp"
#include "learned/weights.hpp"
#include "learned/latency.hpp"
#include "learned/tile_table.hpp"
#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"
#include "kernel/tiles.hpp"

namespace tilecast {

Predictor parse_predictor(std::string_view name) {
  if (name == "tilecast") return Predictor::tilecast;
  if (name == "roofline") return Predictor::roofline;
  throw Error("unknown predictor '" + std::string(name) + "'; allowed: tilecast, roofline");
}

std::string_view predictor_name(Predictor p) {
  return p == Predictor::roofline ? "roofline" : "tilecast";
}

TilePlan plan_kernel(const GpuSpec& gpu, const Kernel& kernel) {
  switch (op_family(kernel.op)) {
    case OpFamily::gemm:
      return plan_gemm(kernel, select_gemm_tile(embedded_tile_table(), gpu, kernel), gpu.num_sm);
    case OpFamily::elementwise: return plan_elementwise(kernel, gpu.num_sm);
    case OpFamily::softmax:
    case OpFamily::layernorm: break;
  }
  return plan_rows(kernel, gpu.num_sm);
}

namespace {

// A softmax moves its DRAM traffic no faster than the element-wise kernel moving the
// same bytes on the same GPU: a relu (one read, one write per element) over
// softmax_traffic_factor x B x H elements, forecast by the element-wise model.
// `base_ms` is that time for B x H elements (factor 1).
double softmax_streaming_ms(const FamilyModel& elementwise, const GpuSpec& gpu, const Kernel& k,
                            double base_ms) {
  const double factor = softmax_traffic_factor(k, gpu);
  if (factor == 1.0) return base_ms;
  return streaming_ms(elementwise, gpu, k.dims[0],
                      std::int64_t(std::ceil(factor * double(k.dims[1]))));
}

}  // namespace

KernelForecast forecast_kernel(const GpuSpec& gpu, const Kernel& kernel, Predictor predictor) {
  KernelForecast f;
  f.flops = kernel_flops(kernel);
  f.bytes = kernel_bytes(kernel);
  f.roofline_ms = roofline_latency_ms(gpu, kernel);
  if (!(f.roofline_ms > 0) || !std::isfinite(f.roofline_ms))
    throw Error("GPU '" + gpu.name + "' gives no finite roofline for this kernel");
  if (predictor == Predictor::roofline) {
    f.latency_ms = f.roofline_ms;
    f.tiles = 1;
    f.waves = 1;
    f.tile = "whole kernel";
    return f;
  }
  const auto& model = embedded_kernel_weights().families[int(op_family(kernel.op))];
  if (!model)
    throw Error("no trained model for op '" + std::string(op_name(kernel.op)) +
                "' is built in; run scripts/train.sh or use --predictor roofline");
  const TilePlan plan = plan_kernel(gpu, kernel);
  const double waves = double(plan.waves);
  // Softmax: the element-wise model's time to stream B x H elements, the reference its
  // utilization is learned against (streaming tiles) and a lower bound.
  const auto& elementwise = embedded_kernel_weights().families[int(OpFamily::elementwise)];
  const bool streams = kernel.op == Op::softmax && elementwise;
  const double stream_ms =
      streams ? streaming_ms(*elementwise, gpu, kernel.dims[0], kernel.dims[1]) : 0.0;
  double tile_ms = tile_roofline_ms(gpu, kernel, plan);
  if (model->streaming_tiles) {
    if (!streams)
      throw Error(
          "the softmax model is learned against the element-wise model, which is not "
          "built in; run scripts/train.sh or use --predictor roofline");
    tile_ms = stream_ms / waves;
  }
  const LearnedLatency fit = learned_latency(*model, gpu, kernel, plan, tile_ms);
  const UtilizationHeads& h = fit.heads;
  const double learned = fit.ms;
  f.latency_ms = std::isfinite(learned) ? std::max(learned, f.roofline_ms) : f.roofline_ms;
  if (streams)
    f.latency_ms =
        std::max(f.latency_ms, softmax_streaming_ms(*elementwise, gpu, kernel, stream_ms));
  f.tiles = plan.tiles;
  f.waves = plan.waves;
  f.utilization = utilization(h, waves);
  if (model->streaming_tiles && learned > h.overhead_ms)  // as a share of the roofline
    f.utilization =
        std::min(1.0, waves * tile_roofline_ms(gpu, kernel, plan) / (learned - h.overhead_ms));
  f.overhead_ms = h.overhead_ms;
  f.tile = plan.label;
  return f;
}

}  // namespace tilecast
