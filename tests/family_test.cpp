// Op families as a registry: the built-in ids and feature orders stay what the weights file
// was trained with, and a new family (here a toy one, in this file) is one file and one line:
// its ops parse, its roofline forecasts, and its learned path runs on injected weights.
#include "kernel/family.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "forecast/model_registry.hpp"
#include "forecast/predictor.hpp"
#include "learned/features.hpp"
#include "learned/heads.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/roofline.hpp"

using namespace tilecast;

namespace {

// The toy family: a prefix scan over rows, one row per tile, with one feature of its own.
double toy_elements(const Kernel& k) { return double(k.dims[0]) * double(k.dims[1]); }

FamilyTraits toy_family() {
  FamilyTraits t;
  t.name = "toy_scan";
  t.ops = {{"toy_scan", {"B", "H"}}};
  t.plan = [](const PlanInputs& in) { return plan_rows(in.kernel, in.gpu.num_sm); };
  t.features = with_common_features({{"log2_row", [](const FeatureInputs& in, int) {
                                        return std::log2(double(in.kernel.dims[1]));
                                      }}});
  t.elements = toy_elements;
  t.flops = [](const Kernel& k) { return 3.0 * toy_elements(k); };
  t.bytes = [](const Kernel& k) { return 2.0 * dtype_bytes(k.dtype) * toy_elements(k); };
  t.fit = {{8}, {8}, 10, 1.0};
  return t;
}

// The one line that adds it.
const OpFamily kToy = register_family(toy_family());

// One layer of zero weights: the outputs are the biases whatever the inputs.
Mlp constant_net(int inputs, std::vector<double> outputs) {
  Mlp m;
  m.mean.assign(std::size_t(inputs), 0.0);
  m.scale.assign(std::size_t(inputs), 1.0);
  m.lo.assign(std::size_t(inputs), -1e9);
  m.hi.assign(std::size_t(inputs), 1e9);
  MlpLayer L;
  L.in = inputs;
  L.out = int(outputs.size());
  L.w.assign(std::size_t(L.in) * std::size_t(L.out), 0.0);
  L.b = std::move(outputs);
  m.layers.push_back(std::move(L));
  m.prepare();
  return m;
}

// gamma = sigmoid(1), alpha = sigmoid(-1), overhead = 0.01 ms x sigmoid(0).
const KernelWeights& toy_weights() {
  static const KernelWeights w = [] {
    const int n = int(family_traits(kToy).features.size());
    KernelWeights k;
    FamilyModel m;
    m.steady = constant_net(n, {1.0});
    m.tail = constant_net(n, {-1.0, 0.0});
    m.overhead_max_ms = 0.01;
    k.families.emplace("toy_scan", std::move(m));
    return k;
  }();
  return w;
}

std::vector<std::string> json_strings(const nlohmann::json& a) {
  std::vector<std::string> v;
  for (const auto& s : a) v.push_back(s.get<std::string>());
  return v;
}

}  // namespace

TEST_SUITE("family") {
  TEST_CASE("the built-in families keep their op ids and the weights file's feature order") {
    const char* names[kOpCount] = {"linear", "bmm",  "add",  "addu",    "mul",
                                   "mulu",   "div",  "divu", "pow",     "powu",
                                   "relu",   "gelu", "tanh", "softmax", "ln"};
    for (int o = 0; o < kOpCount; ++o) {
      CAPTURE(names[o]);
      CHECK(op_name(Op(o)) == names[o]);
      CHECK(int(parse_op(names[o])) == o);
    }
    CHECK((op_family(Op::bmm) == OpFamily::gemm));
    CHECK((op_family(Op::tanh) == OpFamily::elementwise));
    CHECK((op_family(Op::softmax) == OpFamily::softmax));
    CHECK((op_family(Op::ln) == OpFamily::layernorm));
    CHECK(op_dims_label(Op::linear) == "B,M,N,K");
    CHECK(op_dim_count(Op::gelu) == 2);
    REQUIRE(builtin_family_count() == 4);
    const auto w = nlohmann::json::parse(
        test::read_file(test::repo_dir() + "/core/data/models/nvidia-fp32/kernel_weights.json"));
    for (int f = 0; f < builtin_family_count(); ++f) {
      const std::string name(family_traits(OpFamily(f)).name);
      CAPTURE(name);
      REQUIRE(w["families"].contains(name));
      CHECK(feature_names(OpFamily(f)) == json_strings(w["families"][name]["features"]));
    }
  }

  TEST_CASE("softmax's steady net leaves L2 per SM to its re-read traffic model") {
    const auto steady = [](OpFamily f, const std::string& name) {
      for (const Feature& feature : family_traits(f).features)
        if (feature.name == name) return feature.steady;
      FAIL("no feature " << name);
      return false;
    };
    CHECK_FALSE(steady(OpFamily::softmax, "log2_l2_mb_per_sm"));
    CHECK(steady(OpFamily::softmax, "log2_mem_bw_gbps_per_sm"));
    CHECK(steady(OpFamily::layernorm, "log2_l2_mb_per_sm"));
    CHECK(steady(OpFamily::gemm, "log2_l2_mb_per_sm"));
    // The trained weights agree: the steady net's input scale for it is zero.
    const auto w = nlohmann::json::parse(
        test::read_file(test::repo_dir() + "/core/data/models/nvidia-fp32/kernel_weights.json"));
    CHECK(w["config"].get<std::string>().find("softmax:steady=16x16x tail=32x32x "
                                              "steady_inputs=110110000111111") !=
          std::string::npos);
  }

  TEST_CASE("a family's features are one list: the weights file must list them in order") {
    auto ln = nlohmann::json::parse(test::read_file(
        test::repo_dir() +
        "/core/data/models/nvidia-fp32/kernel_weights.json"))["families"]["layernorm"];
    std::swap(ln["features"][0], ln["features"][1]);
    CHECK_THROWS_WITH_AS(parse_family_model(ln.dump(), "w.json", OpFamily::layernorm),
                         doctest::Contains("features"), Error);
  }

  TEST_CASE("a toy family registered in one line parses, plans and forecasts its roofline") {
    const Kernel k = parse_kernel("toy_scan", "4096,1000");
    CHECK(int(k.op) >= kOpCount);
    CHECK((op_family(k.op) == kToy));
    CHECK(family_of(k.op).name == "toy_scan");
    CHECK(kernel_flops(k) == 3.0 * 4096 * 1000);
    CHECK(kernel_bytes(k) == 8.0 * 4096 * 1000);
    CHECK(dims_to_string(k) == "4096,1000");
    CHECK_THROWS_WITH_AS(parse_kernel("toy_scan", "1,2,3"), doctest::Contains("takes 2 dims (B,H)"),
                         Error);
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const KernelForecast f = forecast_kernel(gpu, k, Predictor::roofline);
    CHECK(f.latency_ms == doctest::Approx(std::max(3.0 * 4096 * 1000 / (gpu.fp32_gflops * 1e6),
                                                   8.0 * 4096 * 1000 / (gpu.mem_bw_gbps * 1e6))));
    // In bf16 each element is 2 bytes.
    const KernelForecast h = forecast_kernel(
        gpu, parse_kernel("toy_scan", "4096,1000", DataType::bf16), Predictor::roofline);
    CHECK(h.bytes == 4.0 * 4096 * 1000);
    // The embedded weights have no model for it: a clear error.
    CHECK_THROWS_WITH_AS(forecast_kernel(gpu, k),
                         doctest::Contains("no trained model for op 'toy_scan'"), Error);
    // A name taken is refused.
    CHECK_THROWS_WITH_AS(register_family(toy_family()), doctest::Contains("already registered"),
                         Error);
  }

  TEST_CASE("the toy family's learned path runs on injected weights, directly and registered") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const Kernel k = parse_kernel("toy_scan", "65536,1000");
    const LearnedPredictor learned(toy_weights(), embedded_tile_table("nvidia-fp32"));
    const KernelForecast f = learned.forecast(gpu, k);
    // By hand: 65536 rows on 108 SMs, each row a tile at its roofline share.
    const TilePlan plan = plan_rows(k, gpu.num_sm);
    CHECK(f.waves == (65536 + 107) / 108);
    CHECK(f.tile == plan.label);
    UtilizationHeads h;
    h.gamma = sigmoid(1.0);
    h.alpha = sigmoid(-1.0);
    h.overhead_ms = 0.01 * 0.5;
    const double waves = double(f.waves);
    const double expected = std::max(
        waves * tile_roofline_ms(gpu, k, plan, library_profile_for(gpu)) / utilization(h, waves) +
            h.overhead_ms,
        roofline_latency_ms(gpu, k));
    CHECK(f.latency_ms == doctest::Approx(expected).epsilon(1e-12));
    CHECK(f.overhead_ms == doctest::Approx(0.005));
    CHECK(f.utilization == doctest::Approx(utilization(h, waves)));
    // Registered for its family, forecast_kernel finds it.
    register_learned_model(
        {"", DataType::fp32, "toy_scan"},
        std::make_shared<LearnedPredictor>(toy_weights(), embedded_tile_table("nvidia-fp32")));
    CHECK(forecast_kernel(gpu, k).latency_ms == f.latency_ms);
    // Other families still take the embedded weights.
    const Kernel add = parse_kernel("add", "8,1024");
    CHECK(forecast_kernel(gpu, add).latency_ms ==
          LearnedPredictor(embedded_weights("nvidia-fp32"), embedded_tile_table("nvidia-fp32"))
              .forecast(gpu, add)
              .latency_ms);
  }
}
