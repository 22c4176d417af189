// The one replay cache: each distinct kernel of a replay (the single-GPU step, the serving
// passes, the parallel stages and the plan search) forecast once, as its GPU execution time and
// the host's launch cost. Where no learned model covers a kernel (its GPU's vendor, data type
// and family), the kernel is forecast by the roofline and named in roofline_fallbacks(), for
// the caveats: that decision is made here and nowhere else. Kernels a transferred model
// forecast (the registry's transfers) are named in transfers_used(), for the footing and the
// transfer caveats.
#pragma once

#include <map>
#include <set>
#include <string>

#include "forecast/timeline.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

struct TimedKernel {
  double exec_ms = 0;       // on the GPU
  double launch_ms = 0;     // on the host: the predictor's per-launch cost, at most the latency
  bool host_waits = false;  // the host waits for it to finish (GraphOp::host_sync)
};

// Replays one kernel on the timeline: the host dispatches it, the compute stream runs it after
// everything launched before; where the host waits for it (a device-to-host copy Python reads),
// the host goes on only once it has finished. Returns the execution event.
inline Event launch(Timeline& t, const TimedKernel& k) {
  const Event e = t.launch(k.launch_ms, k.exec_ms);
  if (k.host_waits) t.run(Stream::host, 0, {e});
  return e;
}

// The peak GFLOP/s such a fused kernel runs at: FP32 the FP32 GEMM peak, other types the
// tensor-core peak (the vector peak where none is stated). Throws when the GPU states neither.
double fused_peak_gflops(const GpuSpec& gpu, DataType dtype);
// The roofline of a fused kernel outside the kernel vocabulary: max(FLOPs at the data type's
// tensor peak (FP32: the FP32 GEMM peak), bytes at the memory bandwidth).
double fused_roofline_ms(const GpuSpec& gpu, DataType dtype, double flops, double bytes);
// The rate at which a kernel that only streams from memory (a decode's attention reading the
// K/V cache) reads on this GPU, which no model was trained on: the nearest learned kernel's
// (issue 29, "transfer before roofline"), the datasheet bandwidth times the share the
// registry's FP16 GEMM model reaches on a decode GEMV (one row against an 8192 x 8192 weight,
// memory-bound on every GPU; its launch cost left out). That model learned such GEMVs (vidur's
// decode rows), the FP32 nets never saw one; a read streams alike in any type. The datasheet
// bandwidth for the roofline predictor, on GPUs without FP16 tensor cores and where no learned
// model covers the GEMV.
double streaming_bw_gbps(const GpuSpec& gpu, Predictor predictor);
// The fused engine's attention kernel (FlashAttention / PagedAttention, one per layer), `keys`
// the keys a query attends to (a prompt's length): its bytes at the streaming rate above (a
// decode's attention, reading the K/V cache, is bound by them), and FlashAttention's published
// share of the tensor peak at those keys (kernel/flash_attention.hpp) where its table has the
// GPU's generation and the type; the compute roofline where the table has no figure (FP32,
// Pascal, Volta), the roofline itself for the roofline predictor. The GPU's figures are looked
// up once (the simulator times every step's attention); `stream_bw_gbps` is streaming_bw_gbps
// of the GPU and predictor, which a replay works out once (KernelTimes::stream_bw_gbps).
class FusedAttention {
 public:
  FusedAttention(const GpuSpec& gpu, DataType dtype, Predictor predictor, double stream_bw_gbps);
  double ms(double flops, double bytes, double keys) const;

 private:
  double peak_gflops_ = 0, mem_bw_gbps_ = 0;
  double max_efficiency_ = 0, s_half_ = 0;  // 0: the roofline
};

class KernelTimes {
 public:
  // The GPU must outlive the cache. `launch`: how the replay's kernels are launched, which
  // decides their host cost (tilecast/kernel_forecast.hpp, Launch).
  KernelTimes(const GpuSpec& gpu, Predictor predictor, Launch launch)
      : gpu_(gpu), predictor_(predictor), launch_(launch) {}

  // A kernel's times, forecast on first use.
  const TimedKernel& kernel(const Kernel& k);
  // A graph op's: its kernel's; a compiled engine's fused chain (GraphOp::fused_kernels) its
  // anchor's with the execution scaled by the chain's traffic; the fused engine's attention
  // (GraphOp::fused_bytes) FusedAttention's, with no launch cost.
  TimedKernel op(const GraphOp& op);

  Predictor predictor() const { return predictor_; }
  const GpuSpec& gpu() const { return gpu_; }
  // streaming_bw_gbps of this GPU and predictor, worked out on first use.
  double stream_bw_gbps();
  // Ops no learned model covers, forecast by the roofline (sorted, unique).
  const std::set<std::string>& roofline_fallbacks() const { return fallbacks_; }
  // "<model id> <type> <family>" of the kernels a transferred model forecast (sorted, unique).
  const std::set<std::string>& transfers_used() const { return transfers_; }
  // The GEMMs ("<op> B,M,N,K", kernel_label) whose forecast the library's narrow-load floor set
  // (leading dimensions misaligned, kernel/library_profile.hpp): their measured slowdown.
  const std::set<std::string>& misaligned_gemms() const { return misaligned_; }

 private:
  const GpuSpec& gpu_;
  Predictor predictor_;
  Launch launch_;
  std::map<Kernel, TimedKernel> cache_;
  std::set<std::string> fallbacks_;
  std::set<std::string> transfers_;
  std::set<std::string> misaligned_;
  std::map<DataType, FusedAttention> attention_;  // by the attention's type
  double stream_bw_gbps_ = 0;                     // 0: not worked out yet
};

}  // namespace tilecast::detail
