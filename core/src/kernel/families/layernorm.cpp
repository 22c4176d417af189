// Layer norm over rows: one row per tile, learned against the streaming time of its DRAM
// traffic (the second read of its row included where it misses the caches:
// layernorm_traffic_factor), which carried over to unseen architectures far better than the
// roofline (docs/kernel-model.md).
#include "kernel/family.hpp"
#include "learned/features.hpp"

namespace tilecast {
namespace layernorm_detail {  // named, not anonymous: unity builds put the families in one file

double elements(const Kernel& k) { return double(k.dims[0]) * double(k.dims[1]); }
double flops(const Kernel& k) { return 8.0 * elements(k); }  // mean, var, normalise, scale, shift
double bytes(const Kernel& k) { return 2.0 * dtype_bytes(k.dtype) * elements(k); }
TilePlan plan(const PlanInputs& in) { return plan_rows(in.kernel, in.gpu.num_sm); }

// Whether the row splits into whole passes of its block (vectorized_layer_norm_kernel loads
// the library's elements per pass): a row with a partial last pass is slower per element.
double whole_passes(const FeatureInputs& in, int) {
  return in.kernel.dims[1] % in.library.layernorm_elements_per_pass == 0 ? 1.0 : 0.0;
}

}  // namespace layernorm_detail

FamilyTraits layernorm_family() {
  using namespace layernorm_detail;
  FamilyTraits t;
  t.name = "layernorm";
  t.ops = {{"ln", {"B", "H"}}};
  t.plan = plan;
  t.features = with_common_features({{"whole_passes", whole_passes}});
  t.elements = elements;
  t.flops = flops;
  t.bytes = bytes;
  t.streaming_traffic = layernorm_traffic_factor;
  t.learned_against_traffic = true;
  t.fit = {{16, 16}, {32, 32}, 300, 1.0};
  return t;
}

}  // namespace tilecast
