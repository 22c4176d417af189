// One kernel's latency under one family model (the forecaster and the trainer share it),
// and the streaming time the row kernels are measured against.
#pragma once

#include <cstdint>

#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "kernel/tiles.hpp"
#include "learned/heads.hpp"
#include "learned/weights.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

struct LearnedLatency {
  double ms = 0;  // waves x tile_ms / utilization + overhead; may be non-finite
  UtilizationHeads heads;
};

LearnedLatency learned_latency(const FamilyModel& model, const GpuSpec& gpu, const Kernel& k,
                               const TilePlan& plan, const LibraryProfile& library, double tile_ms);

// The family whose model gives the streaming time.
inline constexpr std::string_view kStreamingFamily = "elementwise";

// Time the element-wise model gives a relu over rows x cols elements (one read and one
// write each), at least its roofline: what streaming that traffic costs on this GPU.
// Softmax runs within 1.1-1.8x of it on every measured GPU, while its roofline ratio
// varies far more, so its utilization is learned against it. `stream_ms` leaves out the
// element-wise kernel's launch cost (its overhead head): the reference a row family's
// utilization scales, whose own launch cost is its own overhead head; `total_ms` keeps it:
// the time of a streaming kernel, a lower bound on any kernel moving those bytes.
struct StreamingTime {
  double stream_ms = 0;
  double total_ms = 0;
};
StreamingTime streaming_time(const FamilyModel& elementwise, const GpuSpec& gpu,
                             const LibraryProfile& library, std::int64_t rows, std::int64_t cols);

// A row kernel moves its DRAM traffic no faster than the element-wise kernel moving the same
// bytes on the same GPU: streaming_time's total over the family's streaming_traffic x B x H
// elements. `base_ms` is that total over B x H (factor 1).
double traffic_streaming_ms(const FamilyTraits& traits, const FamilyModel& elementwise,
                            const GpuSpec& gpu, const LibraryProfile& library, const Kernel& k,
                            double base_ms);

// The streaming time a row family's utilization is learned against, per kernel: over B x H
// elements, or over its traffic where the family says so (learned_against_traffic). The
// trainer and the forecaster share it (its stream_ms is the reference).
StreamingTime reference_streaming_time(const FamilyTraits& traits, const FamilyModel& elementwise,
                                       const GpuSpec& gpu, const LibraryProfile& library,
                                       const Kernel& k);

}  // namespace tilecast
