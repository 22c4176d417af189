// Whether a GPU computes a data type: FP32 always, any other type only where the catalog
// states a tensor or vector peak for it (so BF16 on a V100 is an error naming its types).
#include <string>

#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"

namespace tilecast {

bool gpu_has_precision(const GpuSpec& gpu, DataType t) {
  return t == DataType::fp32 || gpu.peak_tflops_of(t, ComputeUnit::tensor) > 0 ||
         gpu.peak_tflops_of(t, ComputeUnit::vector) > 0;
}

void require_precision(const GpuSpec& gpu, DataType t) {
  if (gpu_has_precision(gpu, t)) return;
  std::string list;
  for (int i = 0; i < kDataTypeCount; ++i)
    if (gpu_has_precision(gpu, DataType(i)))
      list += (list.empty() ? "" : ", ") + std::string(dtype_name(DataType(i)));
  throw Error(gpu.name + " has no " + std::string(dtype_name(t)) +
              " units; its precisions: " + list);
}

}  // namespace tilecast
