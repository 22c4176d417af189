// Half-precision GEMMs whose leading dimensions are not 16-byte multiples run on the library's
// narrow-load kernels (kernel/library_profile.hpp, docs/fp16-model.md "Misaligned GEMMs"): the
// profile's multiples are what the H200's own BF16 kernels measured, the rule binds only where it
// should, and the engines that pad their vocabulary keep their logits GEMM aligned.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "common/median.hpp"
#include "graph/engines/megatron_layer.hpp"
#include "kernel/library_profile.hpp"
#include "test_paths.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_csv.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/roofline.hpp"
#include "tilecast/serving.hpp"

using namespace tilecast;

namespace {

Kernel gemm(Op op, std::int64_t m, std::int64_t n, std::int64_t k, DataType t) {
  Kernel g;
  g.op = op;
  g.dims = {1, m, n, k};
  g.dtype = t;
  return g;
}

using detail::median;

bool mentions_misaligned(const std::vector<std::string>& caveats) {
  return std::any_of(caveats.begin(), caveats.end(), [](const std::string& c) {
    return c.find("narrow-load kernels") != std::string::npos;
  });
}

}  // namespace

TEST_SUITE("misaligned_gemm") {
  TEST_CASE("the profile's multiples are the H200's measured medians (measured / roofline)") {
    const std::string run = test::repo_dir() + "/data/measured/h200/bf16-seed0";
    const auto devices = test::files_in(run + "/devices", ".json");
    REQUIRE(devices.size() == 1);
    const GpuSpec h200 = parse_gpu_spec(test::read_file(devices[0]), devices[0]);
    const LibraryProfile& cuda = library_profile_for(h200);
    REQUIRE(cuda.misaligned_gemm_classes.size() == 2);
    // per class (its largest alignment): measured / roofline of the compute-bound and the
    // memory-bound rows of one op
    using Ratios = std::map<std::int64_t, std::vector<double>>;
    auto ratios = [&](Op op, Ratios& compute, Ratios& memory) {
      const std::string path = run + "/kernels-bf16/" + std::string(op_name(op)) + ".csv";
      for (const MeasuredKernel& m :
           parse_kernel_csv(test::read_file(path), path, kernel_csv_dtype_from_path(path))) {
        const auto* c = cuda.misaligned_gemm_class(m.kernel);
        const RooflineTerms t = roofline_terms(h200, m.kernel);
        const double roofline_ms = std::max(t.compute_ms, t.memory_ms);
        if (!c || roofline_ms < 0.02) continue;
        (t.compute_ms >= t.memory_ms ? compute : memory)[c->max_align_bytes].push_back(
            m.latency_ms / roofline_ms);
      }
    };
    // the multiples: the linear rows'
    Ratios compute, memory;
    ratios(Op::linear, compute, memory);
    auto rounded = [](double v) { return std::round(v * 100) / 100; };
    for (const auto& c : cuda.misaligned_gemm_classes) {
      INFO("alignment up to " << c.max_align_bytes << " bytes: "
                              << compute[c.max_align_bytes].size() << " compute-bound rows, "
                              << memory[c.max_align_bytes].size() << " memory-bound");
      REQUIRE(compute[c.max_align_bytes].size() >= 8);
      REQUIRE(memory[c.max_align_bytes].size() >= 8);
      CHECK(rounded(median(compute[c.max_align_bytes])) == doctest::Approx(c.compute_multiple));
      CHECK(rounded(median(memory[c.max_align_bytes])) == doctest::Approx(c.memory_multiple));
    }
    // the bmm rows, not used for them, agree within 10 % (all memory-bound): why a bmm takes them
    Ratios bmm_compute, bmm_memory;
    ratios(Op::bmm, bmm_compute, bmm_memory);
    CHECK(bmm_compute.empty());
    for (const auto& c : cuda.misaligned_gemm_classes) {
      INFO("bmm, alignment up to "
           << c.max_align_bytes << " bytes: " << bmm_memory[c.max_align_bytes].size() << " rows");
      REQUIRE(bmm_memory[c.max_align_bytes].size() >= 8);
      CHECK(median(bmm_memory[c.max_align_bytes]) / c.memory_multiple ==
            doctest::Approx(1).epsilon(0.10));
    }
  }

  TEST_CASE("alignment comes from K and N at the element width") {
    CHECK(gemm_alignment_bytes(gemm(Op::linear, 4096, 50257, 1280, DataType::bf16)) == 2);
    CHECK(gemm_alignment_bytes(gemm(Op::linear, 4096, 30522, 768, DataType::bf16)) == 4);
    CHECK(gemm_alignment_bytes(gemm(Op::linear, 50257, 1280, 4096, DataType::bf16)) == 512);
    CHECK(gemm_alignment_bytes(gemm(Op::linear, 7, 12, 20, DataType::fp32)) == 16);
    CHECK(gemm_alignment_bytes(gemm(Op::add, 7, 12, 20, DataType::bf16)) == 0);
  }

  TEST_CASE("only misaligned half-precision GEMMs on NVIDIA take the floor") {
    const GpuSpec& h200 = find_gpu("h200");
    const LibraryProfile& cuda = library_profile_for(h200);
    const Kernel lm_head = gemm(Op::linear, 4096, 50257, 1280, DataType::bf16);
    const KernelForecast f = forecast_kernel(h200, lm_head);
    REQUIRE(cuda.misaligned_gemm_class(lm_head) == &cuda.misaligned_gemm_classes[0]);
    CHECK(f.latency_ms >= cuda.misaligned_gemm_classes[0].compute_multiple * f.roofline_ms);
    CHECK(f.misaligned_floor);
    CHECK(mentions_misaligned(single_kernel_caveats(h200, Predictor::tilecast, lm_head, f)));
    const KernelForecast roof = forecast_kernel(h200, lm_head, Predictor::roofline);
    CHECK_FALSE(roof.misaligned_floor);
    CHECK_FALSE(
        mentions_misaligned(single_kernel_caveats(h200, Predictor::roofline, lm_head, roof)));
    // a tiny misaligned GEMM, whose call outlasts 10x its roofline: no floor, no caveat
    const Kernel tiny = gemm(Op::linear, 8, 50257, 2, DataType::bf16);
    const KernelForecast small = forecast_kernel(h200, tiny);
    REQUIRE(cuda.misaligned_gemm_class(tiny));
    CHECK_FALSE(small.misaligned_floor);
    CHECK_FALSE(mentions_misaligned(single_kernel_caveats(h200, Predictor::tilecast, tiny, small)));
    // padded to 50304 (a multiple of 64): the sm90 kernels' time, several times faster
    const KernelForecast padded =
        forecast_kernel(h200, gemm(Op::linear, 4096, 50304, 1280, DataType::bf16));
    CHECK(padded.latency_ms * 3 < f.latency_ms);
    // FP32 (SIMT kernels), FP8 (not measured misaligned) and AMD (hipBLASLt): unchanged
    CHECK_FALSE(cuda.misaligned_gemm_class(gemm(Op::linear, 4096, 50257, 1280, DataType::fp32)));
    CHECK_FALSE(cuda.misaligned_gemm_class(gemm(Op::linear, 4096, 50257, 1280, DataType::fp8)));
    CHECK_FALSE(library_profile_for(find_gpu("mi300x")).misaligned_gemm_class(lm_head));
    // a bmm from the fewest rows measured misaligned (8): an eager prefill's attention at an odd
    // length takes the floor, a decode step's one query row per head does not
    Kernel scores = gemm(Op::bmm, 1023, 1023, 128, DataType::bf16);
    scores.dims[0] = 32;  // batch x heads
    CHECK(cuda.misaligned_gemm_class(scores) == &cuda.misaligned_gemm_classes[0]);
    CHECK(forecast_kernel(h200, scores).misaligned_floor);
    CHECK(cuda.misaligned_gemm_class(gemm(Op::bmm, 8, 1023, 128, DataType::bf16)));
    CHECK_FALSE(cuda.misaligned_gemm_class(gemm(Op::bmm, 7, 1023, 128, DataType::bf16)));
    CHECK_FALSE(cuda.misaligned_gemm_class(gemm(Op::bmm, 1, 1023, 128, DataType::bf16)));
    CHECK(cuda.misaligned_gemm_class(gemm(Op::linear, 1, 50257, 1280, DataType::bf16)));
  }

  TEST_CASE("eager GPT-2 names its misaligned logits GEMMs; the padding engines have none") {
    const GpuSpec& h200 = find_gpu("h200");
    const ModelConfig& gpt2 = find_model("gpt2-large");
    Workload w = make_workload(Mode::inference, 4, 1024);
    w.dtype = DataType::bf16;
    const ModelForecast eager = forecast_model(h200, gpt2, w, Predictor::tilecast);
    REQUIRE(eager.misaligned_gemms.size() == 1);
    CHECK(eager.misaligned_gemms[0] ==
          "linear 1,4096,1280,50257");  // the logits: 1280 in, 50257 out
    // vLLM's padded vocabulary: the serving forecast's logits GEMM is aligned
    ServingRequest r;
    r.prompt = 1024;
    r.output = 2;
    r.batch = 4;
    const ServingForecast served = forecast_serving(h200, gpt2, r);
    CHECK_FALSE(mentions_misaligned(served.caveats));
    r.engine = Engine::eager;  // Hugging Face's unpadded logits
    const ServingForecast eager_served = forecast_serving(h200, gpt2, r);
    CHECK(mentions_misaligned(eager_served.caveats));
    CHECK(eager_served.prefill_ms > served.prefill_ms);
    // Megatron's: 50257 -> 50304 on one GPU, -> 50688 (a multiple of 128 x 4) split over TP 4;
    // its model FLOPs keep the model's 50257
    CHECK(detail::megatron_vocab_share(detail::megatron_shape(gpt2), 1) == 50304);
    CHECK(detail::megatron_vocab_share(detail::megatron_shape(gpt2), 4) == 50688 / 4);
    CHECK(detail::megatron_shape(gpt2).vocab == 50257);
  }
}
