// Whether a GPU computes a data type: FP32 always, any other type only where the catalog
// states a tensor or vector peak for it (so BF16 on a V100 is an error naming its types).
#include <map>
#include <string>

#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
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
  // which catalog GPUs have it, by architecture: "Hopper (h100-sxm, h200), CDNA 3 (mi300x)"
  std::map<std::string, std::string> by_arch;
  std::vector<std::string> order;
  for (const GpuSpec& g : gpu_catalog()) {
    if (!gpu_has_precision(g, t)) continue;
    const std::string arch = g.architecture.empty() ? g.vendor : g.architecture;
    if (!by_arch.count(arch)) order.push_back(arch);
    std::string& ids = by_arch[arch];
    ids += (ids.empty() ? "" : ", ") + g.id;
  }
  std::string where;
  for (const std::string& arch : order)
    where += (where.empty() ? "" : "; ") + arch + " (" + by_arch[arch] + ")";
  throw Error(gpu.name + " has no " + std::string(dtype_name(t)) +
              " units; its precisions: " + list +
              (where.empty() ? ". No catalog GPU has " + std::string(dtype_name(t)) + " units."
                             : ". Catalog GPUs with " + std::string(dtype_name(t)) +
                                   " units, by architecture: " + where + "."));
}

}  // namespace tilecast
