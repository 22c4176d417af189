// NCCL's low-latency protocols (LL, LL128) priced as NCCL's tuning model prices them: a base
// latency, a latency per hop by hardware class and a share of the bus bandwidth
// (core/data/comm_protocols.json, from NVIDIA/nccl src/graph/tuning.cc). Small messages (a
// decode step's tensor-parallel all-reduce of a few KB) run on these, not on Simple.
#pragma once

#include "comm/collective.hpp"

namespace tilecast::comm {

// One collective as the protocols see it.
struct LowLatencyShape {
  Collective kind = Collective::kAllReduce;
  CommAlgorithm algorithm = CommAlgorithm::kRing;
  Placement where;
  LinkClass intra_link = LinkClass::kNvswitch;  // the node's fabric (hops inside a node)
  CollectiveCost cost;                          // steps, bytes per byte, bandwidth share
  double path_bw_gbps = 0;                      // the slowest hop's datasheet bandwidth
  double e_max = 1;                             // the Simple curve's large-message fraction
};

// Whether NCCL's tuning model prices this collective's LL/LL128 (all-reduce, reduce-scatter,
// all-gather; not send/recv or all-to-all).
bool has_low_latency_protocols(Collective kind);

// The protocol's time in ms without the per-call launch cost (the calibration's launch_us):
// base + hops x hop latency + bytes x bytes_factor / (path x share x e_max x fraction).
double low_latency_ms(CommProtocol protocol, const LowLatencyShape& shape, double bytes);

// NCCL's NVLS all-reduce inside a node is priced as the low-latency protocols are: its
// tuning-model latency (comm_protocols.json, nvls_us) plus the calibrated per-call launch cost
// (launch_us; none where the curve has none), its bytes then at the Simple curve's e_max (not on
// the curve, whose small-message rise already holds a ring's latency). This is that latency.
double nvls_latency_ms(double launch_us);

}  // namespace tilecast::comm
