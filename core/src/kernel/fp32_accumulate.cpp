#include "kernel/fp32_accumulate.hpp"

#include "common/format.hpp"
#include "tilecast/enum_names.hpp"

namespace tilecast {

double fp32_accumulate_share(const GpuSpec& gpu, DataType t) {
  const double share = gpu.fp32_accumulate_share[std::size_t(t)];
  return share > 0 && share < 1 ? share : 1;
}

std::string fp32_accumulate_caveat(const GpuSpec& gpu, DataType t) {
  const double share = fp32_accumulate_share(gpu, t);
  if (share >= 1) return {};
  const std::string type(dtype_name(t));
  return "FP32 accumulation: " + gpu.name + " runs " + type +
         " tensor math accumulating in FP32 (as cuBLAS and PyTorch GEMMs do) at " +
         detail::format_with("%.0f", 100 * share) + " % of its FP16-accumulate rate, and the " +
         type + " peak is that rate (" + gpu.fp32_accumulate_source +
         "). The GEMM model's efficiency was learned at the full rate (A100, A40); its time "
         "beyond the matrix instructions is taken not to slow with them, so compute-bound GEMMs "
         "here run nearer their peak. Community PyTorch GEMM rates on GeForce cards still run "
         "above these forecasts (docs/catalog-sanity.md), as cards boosting above their rated "
         "clock would.";
}

}  // namespace tilecast
