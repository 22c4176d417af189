// Collectives of one serving replica's GPUs (header).
#include "serve/tensor_parallel.hpp"

#include "tilecast/error.hpp"

namespace tilecast::detail {

NodeCollective::NodeCollective(const GpuSpec& gpu, int gpus, Collective collective)
    : gpus_(gpus), collective_(collective) {
  if (gpus <= 1) return;
  const std::string what = collective == Collective::kAllReduce ? "all-reduce" : "all-to-all";
  // the system a request names none of (parallel.hpp decides which)
  system_ = system_for_gpus(gpu, gpus);
  if (!system_)
    throw Error(std::string(collective == Collective::kAllReduce ? "tp " : "ep ") +
                std::to_string(gpus) + ": " + no_system_for(gpu, gpus) + " to forecast its " +
                what + "s");
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
