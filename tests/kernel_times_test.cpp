// The one replay cache (forecast/kernel_times.hpp): a kernel forecast once and split into GPU
// and host time; the roofline, named for the caveats, wherever no learned model covers a
// kernel's vendor, data type and family, on every replay path (single GPU, serving, parallel).
#include "forecast/kernel_times.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "serve/quantize.hpp"
#include "support/helpers.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/roofline.hpp"
#include "tilecast/serving.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

Kernel linear(DataType t) {
  Kernel k;
  k.op = Op::linear;
  k.dims = {1, 2048, 4096, 4096};
  k.dtype = t;
  return k;
}

}  // namespace

TEST_SUITE("kernel_times") {
  TEST_CASE("a covered kernel: its learned forecast, the launch cost on the host, once") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const Kernel k = linear(DataType::bf16);
    REQUIRE(has_learned_model(h100, k));
    detail::KernelTimes times(h100, Predictor::tilecast, Launch::eager);
    const KernelForecast f = forecast_kernel(h100, k);
    const detail::TimedKernel& t = times.kernel(k);
    CHECK(t.launch_ms == doctest::Approx(std::clamp(f.overhead_ms, 0.0, f.latency_ms)));
    CHECK(t.exec_ms + t.launch_ms == doctest::Approx(f.latency_ms));
    CHECK(&times.kernel(k) == &t);  // cached
    CHECK(times.roofline_fallbacks().empty());
  }

  TEST_CASE("no learned model for the vendor and type: the roofline, recorded") {
    // INT8 GEMMs have no model, learned or transferred (an H100 states an INT8 tensor peak)
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const Kernel k = linear(DataType::int8);
    CHECK_FALSE(has_learned_model(h100, k));
    CHECK(has_learned_model(h100, linear(DataType::fp8)));  // a transfer (model_registry)
    detail::KernelTimes times(h100, Predictor::tilecast, Launch::eager);
    const detail::TimedKernel t = times.kernel(k);
    CHECK(t.exec_ms + t.launch_ms == forecast_kernel(h100, k, Predictor::roofline).latency_ms);
    REQUIRE(times.roofline_fallbacks().size() == 1);
    CHECK(*times.roofline_fallbacks().begin() == "linear");
    // a transferred model is no fallback: AMD BF16 GEMMs take the tensor-core GEMM model
    const GpuSpec& mi300x = find_gpu("mi300x");
    detail::KernelTimes amd(mi300x, Predictor::tilecast, Launch::eager);
    const detail::TimedKernel g = amd.kernel(linear(DataType::bf16));
    CHECK(g.exec_ms + g.launch_ms >
          forecast_kernel(mi300x, linear(DataType::bf16), Predictor::roofline).latency_ms);
    CHECK(amd.roofline_fallbacks().empty());
    // the roofline predictor never falls back
    detail::KernelTimes roof(h100, Predictor::roofline, Launch::eager);
    roof.kernel(k);
    CHECK(roof.roofline_fallbacks().empty());
  }

  TEST_CASE("a learned set without the family: a transfer, else the roofline for that family") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    Kernel softmax;
    softmax.op = Op::softmax;
    softmax.dims = {4096, 2048, 0, 0};
    softmax.dtype = DataType::fp32;
    CHECK(has_learned_model(h100, softmax));
    CHECK_FALSE(is_transferred(h100, softmax));
    // the FP16 nets have no softmax: the FP32 nets' transfer serves it, and a replay says so
    softmax.dtype = DataType::fp16;
    CHECK(has_learned_model(h100, softmax));
    CHECK(is_transferred(h100, softmax));
    detail::KernelTimes half(h100, Predictor::tilecast, Launch::eager);
    const detail::TimedKernel t = half.kernel(softmax);
    CHECK(half.roofline_fallbacks().empty());
    CHECK(half.transfers_used() == std::set<std::string>{"nvidia-fp32 fp16 softmax"});
    CHECK(t.exec_ms + t.launch_ms > forecast_kernel(h100, softmax, Predictor::roofline).latency_ms);
    // an FP8 softmax (FP8 models run it in BF16) has no model of any kind: the roofline
    softmax.dtype = DataType::fp8;
    CHECK_FALSE(has_learned_model(h100, softmax));
    detail::KernelTimes fp8(h100, Predictor::tilecast, Launch::eager);
    fp8.kernel(softmax);
    CHECK(fp8.roofline_fallbacks() == std::set<std::string>{"softmax"});
    CHECK(fp8.transfers_used().empty());
  }

  TEST_CASE(
      "parallel training takes the transferred models as the single-GPU step does, and says so") {
    const GpuSpec& mi300x = find_gpu("mi300x");
    Workload w = make_workload(Mode::training, 8, 512);
    w.dtype = DataType::bf16;
    const ModelConfig m = find_model("gpt2-large");
    ParallelConfig c;
    c.dp = 2;
    c.tp = 2;
    const ParallelForecast p =
        forecast_parallel(mi300x, find_system("mi300x-8x"), m, w, c, Predictor::tilecast);
    CHECK(p.step_ms > 0);
    // AMD BF16 GEMMs (linear, bmm) by the transferred tensor-core GEMM model, not the roofline
    CHECK(p.roofline_fallbacks.empty());
    const ModelForecast one = forecast_model(mi300x, m, w, Predictor::tilecast);
    CHECK(one.roofline_fallbacks == p.roofline_fallbacks);
    const auto j = nlohmann::json::parse(parallel_forecast_to_json(mi300x, m, p));
    CHECK(test::mentions(
        j["caveats"].get<std::vector<std::string>>(),
        "Transferred model: bf16 GEMMs on AMD Instinct MI300X take model 'nvidia-half-gemm'"));
  }
}

// The fused engine's attention (FusedAttention): FlashAttention's published share of the
// tensor peak where compute-bound; its bytes at the rate a decode GEMV streams
// (streaming_bw_gbps) where memory-bound; the compute roofline where the table has no figure
// (FP32, Volta); the roofline itself for the roofline predictor.
TEST_SUITE("fused_attention") {
  TEST_CASE("a long prefill runs at FlashAttention's efficiency, a decode at the streaming rate") {
    using detail::fused_roofline_ms;
    using detail::FusedAttention;
    using detail::streaming_bw_gbps;
    const GpuSpec& h100 = find_gpu("h100-sxm");
    auto ms = [](const GpuSpec& g, DataType t, Predictor p, double flops, double bytes,
                 double keys) {
      return FusedAttention(g, t, p, streaming_bw_gbps(g, p)).ms(flops, bytes, keys);
    };
    // one layer of a 4096-token causal prefill, 32 heads of 128: compute-bound
    const double s = 4096, heads = 32, hd = 128;
    const double flops = 4 * s * s / 2 * heads * hd, bytes = 4 * s * heads * hd * 2;
    const double roof = fused_roofline_ms(h100, DataType::bf16, flops, bytes);
    const double fa = ms(h100, DataType::bf16, Predictor::tilecast, flops, bytes, s);
    // FlashAttention-3's 0.75 of the peak at 4096 keys (x 4096 / (4096 + 128))
    CHECK(fa / roof == doctest::Approx(1 / (0.75 * s / (s + 128))).epsilon(1e-9));
    CHECK(ms(h100, DataType::bf16, Predictor::roofline, flops, bytes, s) == roof);
    CHECK(ms(h100, DataType::fp32, Predictor::tilecast, flops, bytes, s) ==
          fused_roofline_ms(h100, DataType::fp32, flops, bytes));
    const GpuSpec& v100 = find_gpu("v100-sxm");
    CHECK(ms(v100, DataType::fp16, Predictor::tilecast, flops, bytes, s) ==
          fused_roofline_ms(v100, DataType::fp16, flops, bytes));
    // a decode step: one query per sequence against 4096 keys, bound by reading K and V, at the
    // rate a decode GEMV streams its weights (the tensor-core GEMM model's, below the
    // datasheet's), the datasheet's for the roofline predictor
    const double dflops = 4 * 64 * s * heads * hd, dbytes = 2 * 64 * s * 8 * hd * 2;
    const double stream = streaming_bw_gbps(h100, Predictor::tilecast);
    CHECK(stream < 0.9 * h100.mem_bw_gbps);
    CHECK(stream > 0.5 * h100.mem_bw_gbps);
    CHECK(streaming_bw_gbps(h100, Predictor::roofline) == h100.mem_bw_gbps);
    CHECK(ms(h100, DataType::bf16, Predictor::tilecast, dflops, dbytes, s) ==
          doctest::Approx(dbytes / (stream * 1e6)).epsilon(1e-12));
    CHECK(ms(h100, DataType::bf16, Predictor::roofline, dflops, dbytes, s) ==
          doctest::Approx(fused_roofline_ms(h100, DataType::bf16, dflops, dbytes)).epsilon(1e-12));
    // the GEMV's own forecast, less its launch cost, streams at that rate
    const std::int64_t dims[4] = {1, 1, 8192, 8192};
    const KernelForecast gemv =
        forecast_kernel(h100, make_kernel(Op::linear, dims, 4, DataType::fp16), Predictor::tilecast,
                        Launch::engine);
    CHECK(gemv.bytes / (gemv.latency_ms - gemv.overhead_ms) / 1e6 ==
          doctest::Approx(stream).epsilon(1e-12));
    // FP32 attention reads at the same rate (the FP32 nets never learned a GEMV); a GPU no
    // half-precision GEMM model covers (Pascal's P4, no FP16 tensor cores) at the datasheet's
    CHECK(ms(h100, DataType::fp32, Predictor::tilecast, 0, dbytes, s) ==
          doctest::Approx(dbytes / (stream * 1e6)).epsilon(1e-12));
    const GpuSpec& p4 = find_gpu("p4");
    CHECK(streaming_bw_gbps(p4, Predictor::tilecast) == p4.mem_bw_gbps);
  }

  TEST_CASE(
      "a served prefill's attention is slower than its roofline, its decode by the streaming "
      "rate") {
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    const ModelConfig& m = find_model("llama3-8b");
    auto attention_ms = [&](Mode mode, Predictor p) {
      const detail::ServingTypes t = detail::serving_types(a100, ServingRequest{});
      const OpGraph g = detail::serving_graph(
          a100, m,
          make_workload(mode, 1, mode == Mode::prefill ? 4096 : 1, mode == Mode::decode ? 4096 : 0),
          Engine::fused, t);
      detail::KernelTimes times(a100, p, Launch::engine);
      double ms = 0;
      for (const auto& sec : g.sections)
        for (const auto& o : sec.ops)
          if (o.fused_bytes > 0) ms += times.op(o).exec_ms * double(sec.count);
      return ms;
    };
    CHECK(attention_ms(Mode::prefill, Predictor::tilecast) >
          1.3 * attention_ms(Mode::prefill, Predictor::roofline));
    CHECK(attention_ms(Mode::decode, Predictor::tilecast) ==
          doctest::Approx(attention_ms(Mode::decode, Predictor::roofline) * a100.mem_bw_gbps /
                          detail::streaming_bw_gbps(a100, Predictor::tilecast)));
  }

  TEST_CASE("a fused chain never falls under its own roofline: packed weights that bind compute") {
    // gpt-oss-20b's MXFP4 experts on an H200 at a 900-sequence decode: ~113 rows an expert, so
    // the BF16 GEMM is memory-bound but its packed form (0.53 bytes a weight) compute-bound
    const GpuSpec& h200 = find_gpu("h200");
    const ModelConfig& m = find_model("gpt-oss-20b");
    ServingRequest r;
    r.dtype = DataType::bf16;
    r.weights = WeightFormat::mxfp4;
    const detail::ServingTypes t = detail::serving_types(h200, r);
    const OpGraph g =
        detail::serving_graph(h200, m, make_workload(Mode::decode, 900, 1, 1500), Engine::fused, t);
    detail::KernelTimes times(h200, Predictor::tilecast, Launch::engine);
    int chains = 0, compute_bound = 0;
    for (const GraphSection& s : g.sections)
      for (const GraphOp& o : s.ops) {
        if (o.fused_kernels == 0) continue;
        ++chains;
        const double peak = peak_gflops(h200, o.kernel);
        const double compute_ms = op_flops(o) / peak / 1e6;
        const double memory_ms = kernel_bytes(o.kernel) * o.traffic_scale / h200.mem_bw_gbps / 1e6;
        const double exec_ms = times.op(o).exec_ms;
        CAPTURE(o.name);
        CHECK(exec_ms >= std::max(compute_ms, memory_ms) * (1 - 1e-12));
        if (compute_ms > memory_ms) {
          ++compute_bound;
          // the anchor's share of its roofline kept: the BF16 GEMM's forecast over its roofline
          const double anchor_ms = times.kernel(o.kernel).exec_ms;
          const double anchor_roof_ms =
              std::max(kernel_flops(o.kernel) / peak, kernel_bytes(o.kernel) / h200.mem_bw_gbps) /
              1e6;
          CHECK(exec_ms / compute_ms == doctest::Approx(anchor_ms / anchor_roof_ms));
        }
      }
    CHECK(chains > 0);
    CHECK(compute_bound > 0);
  }
}
