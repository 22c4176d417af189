// Collectives of one serving replica's GPUs (header).
#include "serve/tensor_parallel.hpp"

#include "tilecast/error.hpp"

namespace tilecast::detail {

NodeCollective::NodeCollective(const GpuSpec& gpu, int gpus, Collective collective)
    : gpus_(gpus), collective_(collective) {
  if (gpus <= 1) return;
  const std::string what = collective == Collective::kAllReduce ? "all-reduce" : "all-to-all";
  // the GPU's catalog system (parallel.hpp decides which), when one node of it holds the group
  if (const SystemSpec* s = default_system_for(gpu, gpus); s && gpus <= s->gpus_per_node)
    system_ = s;
  if (!system_) {
    if (auto node = node_of_catalog_links(gpu.id.empty() ? gpu.name : gpu.id, gpu.name, gpus))
      own_ = std::make_shared<const SystemSpec>(std::move(*node));
    if (!own_)
      throw Error(std::string(collective == Collective::kAllReduce ? "tp " : "ep ") +
                  std::to_string(gpus) + ": " + gpu.name +
                  " has no catalog system or interconnect to forecast its " + what + "s");
    system_ = own_.get();
  }
  how_ = "comm model (docs/comm.md): " + what + " on " + system_->name;
}

double NodeCollective::ms(double bytes) const {
  if (gpus_ <= 1 || bytes <= 0) return 0;
  CollectiveRequest r;
  r.collective = collective_;
  r.bytes = bytes;
  r.gpus = gpus_;
  return forecast_collective(*system_, r).time_ms;
}

}  // namespace tilecast::detail
