// Collectives of one serving replica's GPUs (header).
#include "serve/tensor_parallel.hpp"

#include "tilecast/error.hpp"
#include "tilecast/interconnect.hpp"

namespace tilecast::detail {

NodeCollective::NodeCollective(const GpuSpec& gpu, int gpus, Collective collective)
    : gpus_(gpus), collective_(collective) {
  if (gpus <= 1) return;
  const bool all_reduce = collective == Collective::kAllReduce;
  const std::string what = all_reduce ? "all-reduce" : "all-to-all";
  for (const SystemSpec& s : system_catalog())
    if (!gpu.id.empty() && s.gpu == gpu.id && gpus <= s.gpus_per_node) {
      system_ = &s;
      how_ = "comm model (docs/comm.md): " + what + " on " + s.name;
      return;
    }
  const GpuInterconnect* links = catalog_interconnect(gpu.id.empty() ? gpu.name : gpu.id);
  const char* link = nullptr;
  if (links && links->nvlink) {
    link_gbps_ = links->nvlink->bw_gbps_per_direction;
    link = "NVLink";
  } else if (links && links->pcie) {
    link_gbps_ = links->pcie->bw_gbps_per_direction;
    link = "PCIe";
  } else {
    throw Error(std::string(all_reduce ? "tp " : "ep ") + std::to_string(gpus) + ": " + gpu.name +
                " has no catalog system or interconnect to forecast its " + what + "s");
  }
  how_ = (all_reduce ? "ring all-reduce" : "all-to-all") + std::string(" bound at the catalog ") +
         link + " bandwidth (" + std::to_string(int(link_gbps_)) +
         " GB/s per direction; no catalog system has " + std::to_string(gpus) + " of this GPU)";
}

double NodeCollective::ms(double bytes) const {
  if (gpus_ <= 1 || bytes <= 0) return 0;
  if (system_) {
    CollectiveRequest r;
    r.collective = collective_;
    r.bytes = bytes;
    r.gpus = gpus_;
    return forecast_collective(*system_, r).time_ms;
  }
  // ring all-reduce: each GPU sends and receives 2 (n - 1) / n of the buffer; all-to-all: (n - 1)
  // / n of it, to the others
  const double share = (collective_ == Collective::kAllReduce ? 2.0 : 1.0) * (gpus_ - 1) / gpus_;
  return share * bytes / (link_gbps_ * 1e9) * 1e3;
}

}  // namespace tilecast::detail
