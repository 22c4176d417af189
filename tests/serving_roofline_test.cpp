// No serving kernel under its roofline: every op of the fused engine's serving graphs, across GPUs
// of every vendor and generation, precisions, packed weight formats, caches and batch shapes,
// forecast by the one replay cache (forecast/kernel_times.hpp) at or above the time its own FLOPs
// and bytes need at the GPU's peak and bandwidth. A packed GEMM scaled by its bytes alone once fell
// under its compute bound (gpt-oss's MXFP4 experts on an H200, 1,258 TFLOP/s against 989).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "forecast/kernel_times.hpp"
#include "serve/quantize.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/roofline.hpp"
#include "tilecast/serving.hpp"

using namespace tilecast;

namespace {

// The op's own roofline, as the replay forecasts it: a fused attention's FLOPs and bytes, a
// chain's FLOPs and its anchor's bytes scaled by the chain's traffic, else its kernel's.
double op_roofline_ms(const GpuSpec& gpu, const GraphOp& o) {
  if (o.fused_bytes > 0)
    return detail::fused_roofline_ms(gpu, o.kernel.dtype, o.fused_flops, o.fused_bytes);
  if (o.fused_kernels > 0)
    return std::max(o.chain_flops / peak_gflops(gpu, o.kernel),
                    kernel_bytes(o.kernel) * o.traffic_scale / gpu.mem_bw_gbps) /
           1e6;
  return roofline_latency_ms(gpu, o.kernel);
}

struct Setup {
  const char* gpu;
  const char* model;
  DataType dtype;
  WeightFormat weights;
  bool fp8_cache;
};

}  // namespace

TEST_SUITE("serving-roofline") {
  TEST_CASE("every serving kernel at or above its roofline, on the GPU and off the host") {
    const std::vector<Setup> setups = {
        {"h100-sxm", "llama3-8b", DataType::bf16, WeightFormat::native, false},
        {"h100-sxm", "llama3-8b", DataType::fp8, WeightFormat::native, true},
        {"h200", "gpt-oss-20b", DataType::bf16, WeightFormat::mxfp4, false},
        {"b200", "gpt-oss-20b", DataType::bf16, WeightFormat::mxfp4, true},
        {"b200", "llama3-8b", DataType::fp4, WeightFormat::native, true},
        {"a100-80gb-sxm", "llama3-8b", DataType::fp16, WeightFormat::int4, false},
        {"l40s", "mixtral-8x7b", DataType::bf16, WeightFormat::int8, false},
        {"mi300x", "llama3-8b", DataType::bf16, WeightFormat::native, false},
        {"t4", "llama3-8b", DataType::fp16, WeightFormat::int4, false},
    };
    int ops = 0;
    for (const Setup& s : setups) {
      const GpuSpec& gpu = find_gpu(s.gpu);
      const ModelConfig& model = find_model(s.model);
      ServingRequest r;
      r.dtype = s.dtype;
      r.weights = s.weights;
      if (s.fp8_cache) r.kv_cache = DataType::fp8;
      const detail::ServingTypes t = detail::serving_types(gpu, r);
      detail::KernelTimes times(gpu, Predictor::tilecast, Launch::engine);
      // a prefill, a small decode and a large one (packed GEMMs memory-bound, then not)
      for (const Workload& w :
           {make_workload(Mode::prefill, 2, 2048), make_workload(Mode::decode, 8, 1, 2048),
            make_workload(Mode::decode, 512, 1, 2048)}) {
        const OpGraph g = detail::serving_graph(gpu, model, w, Engine::fused, t);
        for (const GraphSection& sec : g.sections)
          for (const GraphOp& o : sec.ops) {
            if (o.phase != Phase::forward) continue;
            ++ops;
            const detail::TimedKernel k = times.op(o);
            CAPTURE(s.gpu);
            CAPTURE(s.model);
            CAPTURE(o.name);
            CAPTURE(w.batch);
            // the fused engine sums execution times (the launch hidden): that alone bounds
            CHECK(k.exec_ms >= op_roofline_ms(gpu, o) * (1 - 1e-9));
          }
      }
    }
    CHECK(ops > 500);
  }
}
