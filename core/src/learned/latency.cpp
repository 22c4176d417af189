#include "learned/latency.hpp"

#include <algorithm>
#include <cmath>

#include "learned/features.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {

LearnedLatency learned_latency(const FamilyModel& model, const GpuSpec& gpu, const Kernel& k,
                               const TilePlan& plan, const LibraryProfile& library,
                               double tile_ms) {
  const Features x = kernel_features(gpu, k, plan, library);
  double out[3];
  model.forward(x.v.data(), out);
  LearnedLatency r;
  r.heads = heads_from_outputs(out, model.overhead_max_ms);
  r.ms = compose_latency_ms(double(plan.waves), tile_ms, r.heads);
  return r;
}

StreamingTime streaming_time(const FamilyModel& elementwise, const GpuSpec& gpu,
                             const LibraryProfile& library, std::int64_t rows, std::int64_t cols) {
  Kernel relu;
  relu.op = Op::relu;
  relu.dims = {rows, cols, 1, 1};
  const TilePlan plan = plan_elementwise(relu, library, gpu.num_sm);
  const double roofline = roofline_latency_ms(gpu, relu);
  const LearnedLatency l = learned_latency(elementwise, gpu, relu, plan, library,
                                           tile_roofline_ms(gpu, relu, plan, library));
  StreamingTime t;
  if (!std::isfinite(l.ms)) {
    t.stream_ms = t.total_ms = roofline;
    return t;
  }
  t.total_ms = std::max(l.ms, roofline);
  t.stream_ms = std::max(l.ms - l.heads.overhead_ms, roofline);
  return t;
}

double traffic_streaming_ms(const FamilyTraits& traits, const FamilyModel& elementwise,
                            const GpuSpec& gpu, const LibraryProfile& library, const Kernel& k,
                            double base_ms) {
  const double factor = traits.streaming_traffic ? traits.streaming_traffic(k, gpu, library) : 1.0;
  if (factor == 1.0) return base_ms;
  return streaming_time(elementwise, gpu, library, k.dims[0],
                        std::int64_t(std::ceil(factor * double(k.dims[1]))))
      .total_ms;
}

StreamingTime reference_streaming_time(const FamilyTraits& traits, const FamilyModel& elementwise,
                                       const GpuSpec& gpu, const LibraryProfile& library,
                                       const Kernel& k) {
  // Over factor x H columns; a factor of 1 gives H exactly, so one model call either way.
  const double factor = traits.learned_against_traffic && traits.streaming_traffic
                            ? traits.streaming_traffic(k, gpu, library)
                            : 1.0;
  return streaming_time(elementwise, gpu, library, k.dims[0],
                        std::int64_t(std::ceil(factor * double(k.dims[1]))));
}

}  // namespace tilecast
