// Send/receive between two GPUs (pipeline-parallel activations, KV-cache moves): one step,
// the whole message over the one path. More GPUs do not change it: the forecast is one pair.
#include "comm/collective.hpp"

namespace tilecast::comm {
namespace {

CollectiveCost send_recv_cost(CommAlgorithm, const Placement&) { return {1.0, 1.0, 1.0}; }

}  // namespace

const CollectiveModel& send_recv_model() {
  static const CollectiveModel m{Collective::kSendRecv, CommFamily::kP2p, false, false,
                                 send_recv_cost};
  return m;
}

}  // namespace tilecast::comm
