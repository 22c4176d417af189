#include "kernel/matrix_clock.hpp"

#include "common/format.hpp"
#include "tilecast/enum_names.hpp"

namespace tilecast {

double matrix_clock_share(const GpuSpec& gpu, DataType t) {
  const double mhz = gpu.matrix_clock_mhz[std::size_t(t)];
  if (!(mhz > 0) || !(gpu.clock_mhz > 0) || mhz >= gpu.clock_mhz) return 1;
  return mhz / gpu.clock_mhz;
}

std::string matrix_clock_caveat(const GpuSpec& gpu, DataType t) {
  const double share = matrix_clock_share(gpu, t);
  if (share >= 1) return {};
  const std::string type(dtype_name(t));
  return "Matrix clock: compute-bound " + type + " GEMMs on " + gpu.name + " are forecast at " +
         "the clock its matrix cores sustain through a dense GEMM, " +
         detail::format_with("%.0f", gpu.matrix_clock_mhz[std::size_t(t)]) + " of its " +
         detail::format_with("%.0f", gpu.clock_mhz) + " MHz (" +
         detail::format_with("%.0f", 100 * share) + " % of the " + type +
         " peak), as its vendor measured (" + gpu.matrix_clock_source +
         "); memory-bound ones (decode at small batches) at the boost clock, as a lightly "
         "loaded GPU runs. The GEMM model's efficiency comes from NVIDIA GPUs that hold about "
         "their boost clock.";
}

}  // namespace tilecast
