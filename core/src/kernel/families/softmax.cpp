// Softmax over rows: one row per tile, learned against the streaming time of its DRAM traffic
// (the block kernel's re-reads of long rows included: softmax_traffic_factor).
#include "kernel/family.hpp"
#include "learned/features.hpp"

namespace tilecast {
namespace softmax_detail {  // named, not anonymous: unity builds put the families in one file

double elements(const Kernel& k) { return double(k.dims[0]) * double(k.dims[1]); }
double flops(const Kernel& k) { return 5.0 * elements(k); }  // max, sub, exp, sum, div
double bytes(const Kernel& k) { return 2.0 * dtype_bytes(k.dtype) * elements(k); }
TilePlan plan(const PlanInputs& in) { return plan_rows(in.kernel, in.gpu.num_sm); }

}  // namespace softmax_detail

FamilyTraits softmax_family() {
  using namespace softmax_detail;
  FamilyTraits t;
  t.name = "softmax";
  t.ops = {{"softmax", {"B", "H"}}};
  t.plan = plan;
  // The row's alignment: H a multiple of 8 puts every row on a 32-byte sector. The steady net
  // does not see L2 per SM, which the re-read traffic model (softmax_traffic_factor) carries:
  // as a free input it let the net single out the one large-L2 training GPU
  // (docs/kernel-model.md, "Changes to the paper's method").
  t.features = tail_only(with_common_features({{"log2_align_h",
                                                [](const FeatureInputs& in, int) {
                                                  return log2_alignment(in.kernel.dims[1]);
                                                }}}),
                         {"log2_l2_mb_per_sm"});
  t.elements = elements;
  t.flops = flops;
  t.bytes = bytes;
  t.streaming_traffic = softmax_traffic_factor;
  t.fit = {{16, 16}, {32, 32}, 300, 1.0};
  return t;
}

}  // namespace tilecast
