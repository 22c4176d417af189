// Predictors as data: the public forecast is the registry's learned model or the roofline,
// and a learned model can be registered for one vendor, data type and family.
#include "forecast/predictor.hpp"

#include <doctest/doctest.h>

#include <memory>

#include "forecast/amd_gemm_predictor.hpp"
#include "forecast/model_registry.hpp"
#include "learned/amd_gemm.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

// Answers 42 ms for whatever it is asked.
class FixedPredictor final : public KernelPredictor {
 public:
  KernelForecast forecast(const GpuSpec&, const Kernel&) const override {
    KernelForecast f;
    f.latency_ms = 42;
    return f;
  }
  std::string_view name() const override { return "fixed"; }
};

}  // namespace

TEST_SUITE("predictor") {
  TEST_CASE("forecast_kernel is the embedded learned model or the roofline, bit for bit") {
    const LearnedPredictor learned(embedded_weights("nvidia-fp32"),
                                   embedded_tile_table("nvidia-fp32"));
    const LearnedPredictor amd(embedded_weights("amd-fp32"), embedded_tile_table("amd-fp32"));
    const RooflinePredictor roofline;
    const auto amd_gemm = make_amd_gemm_predictor(
        embedded_model_part<AmdGemmModel>("amd-fp32-gemm", "model", parse_amd_gemm_model),
        embedded_tile_table("amd-fp32"), std::make_shared<RooflinePredictor>());
    CHECK(learned.name() == "tilecast");
    CHECK(roofline.name() == "roofline");
    for (const char* id : {"a100-80gb-pcie", "h100-sxm", "mi250-gcd"})
      for (const auto& [op, dims] :
           {std::pair{"bmm", "96,512,64,512"}, std::pair{"add", "8,4096"},
            std::pair{"softmax", "65536,16384"}, std::pair{"ln", "8,768"}}) {
        const GpuSpec& gpu = find_gpu(id);
        const Kernel k = parse_kernel(op, dims);
        CAPTURE(id);
        CAPTURE(op);
        const KernelPredictor& model = gpu.vendor != "AMD"
                                           ? static_cast<const KernelPredictor&>(learned)
                                       : is_gemm(k.op) ? *amd_gemm  // the MI250 GCD is not measured
                                                       : amd;
        CHECK(forecast_kernel(gpu, k).latency_ms == model.forecast(gpu, k).latency_ms);
        CHECK(forecast_kernel(gpu, k, Predictor::roofline).latency_ms ==
              roofline.forecast(gpu, k).latency_ms);
      }
  }

  TEST_CASE("a learned model registered for one vendor, data type and family serves only those") {
    register_learned_model({"NVIDIA", DataType::int8, "elementwise"},
                           std::make_shared<FixedPredictor>());
    const Kernel add = parse_kernel("add", "8,1024", DataType::int8);
    CHECK(forecast_kernel(find_gpu("t4"), add).latency_ms == 42);
    CHECK_THROWS_WITH_AS(forecast_kernel(find_gpu("mi210"), add),
                         "no learned model for int8 kernels yet; use --predictor roofline", Error);
    CHECK_THROWS_WITH_AS(
        forecast_kernel(find_gpu("t4"), parse_kernel("ln", "8,1024", DataType::int8)),
        doctest::Contains("no learned model for int8"), Error);
    // The roofline does not go through the registry.
    CHECK(forecast_kernel(find_gpu("t4"), add, Predictor::roofline).latency_ms != 42);
    CHECK_THROWS_AS(register_learned_model({"", DataType::fp32, ""}, nullptr), Error);
  }
}
