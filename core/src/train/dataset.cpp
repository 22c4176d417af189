#include "train/dataset.hpp"

#include "tilecast/roofline.hpp"

namespace tilecast::train {

GemmTile measured_gemm_tile(const MeasuredKernel& row) {
  GemmTile t = gemm_tile_from_kernel_name(row.kernel_name).value_or(GemmTile{});
  const std::int64_t b = row.kernel.dims[0], z = row.grid[2];
  if (z > b && z % b == 0 && z / b <= 4096) t.split = int(z / b);
  return t;
}

Sample make_sample(const GpuSpec& gpu, const MeasuredKernel& row,
                   std::optional<GemmTile> gemm_tile) {
  TilePlan plan;
  switch (op_family(row.kernel.op)) {
    case OpFamily::gemm:
      plan = plan_gemm(row.kernel, gemm_tile.value_or(measured_gemm_tile(row)), gpu.num_sm);
      break;
    case OpFamily::elementwise: plan = plan_elementwise(row.kernel, gpu.num_sm); break;
    default: plan = plan_rows(row.kernel, gpu.num_sm); break;
  }
  Sample s;
  const Features f = kernel_features(gpu, row.kernel, plan);
  s.x = f.v;
  s.waves = double(plan.waves);
  s.tile_ms = tile_roofline_ms(gpu, row.kernel, plan);
  s.roofline_ms = roofline_latency_ms(gpu, row.kernel);
  s.latency_ms = row.latency_ms;
  s.gpu = &gpu;
  s.kernel = row.kernel;
  return s;
}

}  // namespace tilecast::train
