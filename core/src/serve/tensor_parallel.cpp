// Tensor-parallel sharding and the all-reduce model choice (header).
#include "serve/tensor_parallel.hpp"

#include "tilecast/comm.hpp"
#include "tilecast/error.hpp"
#include "tilecast/interconnect.hpp"
#include "tilecast/system.hpp"

namespace tilecast::detail {

AllReduce::AllReduce(const GpuSpec& gpu, int tp) : tp_(tp) {
  if (tp <= 1) return;
  for (const SystemSpec& s : system_catalog())
    if (!gpu.id.empty() && s.gpu == gpu.id && tp <= s.gpus_per_node) {
      system_ = &s;
      how_ = "comm model (docs/comm.md): all-reduce on " + s.name;
      return;
    }
  const GpuInterconnect* links = catalog_interconnect(gpu.id.empty() ? gpu.name : gpu.id);
  if (links && links->nvlink) {
    link_gbps_ = links->nvlink->bw_gbps_per_direction;
    how_ = "ring all-reduce bound at the catalog NVLink bandwidth (" +
           std::to_string(int(link_gbps_)) + " GB/s per direction; no catalog system has " +
           std::to_string(tp) + " of this GPU)";
  } else if (links && links->pcie) {
    link_gbps_ = links->pcie->bw_gbps_per_direction;
    how_ = "ring all-reduce bound at the catalog PCIe bandwidth (" +
           std::to_string(int(link_gbps_)) + " GB/s per direction; no catalog system has " +
           std::to_string(tp) + " of this GPU)";
  } else {
    throw Error("tp " + std::to_string(tp) + ": " + gpu.name +
                " has no catalog system or interconnect to forecast its all-reduces");
  }
}

double AllReduce::ms(double bytes) const {
  if (tp_ <= 1 || bytes <= 0) return 0;
  if (system_) {
    CollectiveRequest r;
    r.collective = Collective::kAllReduce;
    r.bytes = bytes;
    r.gpus = tp_;
    return forecast_collective(*system_, r).time_ms;
  }
  // ring: each GPU sends and receives 2 (n - 1) / n of the buffer
  return 2.0 * (tp_ - 1) / tp_ * bytes / (link_gbps_ * 1e9) * 1e3;
}

}  // namespace tilecast::detail
