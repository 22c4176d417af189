#include "train/dataset.hpp"

#include "tilecast/roofline.hpp"

namespace tilecast::train {

GemmTile measured_gemm_tile(const MeasuredKernel& row) {
  GemmTile t = gemm_tile_from_kernel_name(row.kernel_name).value_or(GemmTile{});
  const std::int64_t b = row.kernel.dims[0], z = row.grid[2];
  if (z > b && z % b == 0 && z / b <= 4096) t.split = int(z / b);
  return t;
}

Sample make_sample(const GpuSpec& gpu, const MeasuredKernel& row, const TileTable& gemm_tiles,
                   const LibraryProfile& library) {
  const TilePlan plan = plan_kernel(gpu, row.kernel, gemm_tiles, library);
  Sample s;
  const Features f = kernel_features(gpu, row.kernel, plan, library);
  s.x = f.v;
  s.waves = double(plan.waves);
  s.tile_ms = tile_roofline_ms(gpu, row.kernel, plan, library);
  s.roofline_ms = roofline_latency_ms(gpu, row.kernel);
  s.latency_ms = row.latency_ms;
  s.gpu = &gpu;
  s.kernel = row.kernel;
  return s;
}

}  // namespace tilecast::train
