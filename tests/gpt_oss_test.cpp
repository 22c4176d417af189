// gpt-oss (graph/gpt_oss.cpp, blocks/moe.cpp's ExpertForm::gpt_oss, blocks/attention.cpp's sinks):
// the graph against modeling_gpt_oss.py as transformers 4 and 5 run it, and forecasts that follow
// from it. No gpt-oss run was measured: these check the graph, not the figures.
#include <doctest/doctest.h>

#include <string>

#include "serve/quantize.hpp"
#include "support/helpers.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/serving.hpp"

using namespace tilecast;

namespace gpt_oss_test {  // named: the unity build joins the test files

ModelConfig transformers5(ExpertsImplementation e) {
  ModelConfig m = find_model("gpt-oss-20b");
  m.transformers_major = 5;
  m.experts_implementation = e;
  return m;
}

double forward_flops(const OpGraph& g, const std::string& section) {
  double f = 0;
  for (const auto& o : test::section_named(g, section).ops)
    if (o.phase == Phase::forward && o.kind == OpKind::gemm) f += kernel_flops(o.kernel);
  return f;
}

const GraphOp* first_op(const GraphSection& s, const std::string& name, Phase phase) {
  for (const auto& o : s.ops)
    if (o.name == name && o.phase == phase) return &o;
  return nullptr;
}

int count_named(const GraphSection& s, const std::string& name, Phase phase) {
  int n = 0;
  for (const auto& o : s.ops) n += o.name == name && o.phase == phase ? 1 : 0;
  return n;
}

TEST_SUITE("gpt_oss") {
  TEST_CASE("the zoo's configs: experts, sliding layers, biases") {
    const ModelConfig& m = find_model("gpt-oss-20b");
    CHECK(m.architecture == Architecture::gpt_oss);
    CHECK(m.num_experts == 32);
    CHECK(m.experts_per_token == 4);
    CHECK(m.expert_intermediate_size == 2880);
    CHECK(m.sliding_window == 128);
    CHECK(m.attention_bias);
    CHECK(is_sliding_layer(m, 0));
    CHECK_FALSE(is_sliding_layer(m, 1));
    CHECK(find_model("gpt-oss-120b").num_experts == 128);
  }

  TEST_CASE("transformers 4 computes every expert on every token in inference, top-k in 5") {
    const Workload w = make_workload(Mode::inference, 1, 512);
    const OpGraph all = build_op_graph(find_model("gpt-oss-20b"), w);
    const OpGraph grouped = build_op_graph(transformers5(ExpertsImplementation::grouped_mm), w);
    const OpGraph loop = build_op_graph(transformers5(ExpertsImplementation::eager), w);
    // the experts' GEMMs: 32 experts against 4 of them per token (the router and attention
    // GEMMs are the same in both)
    const double f4 = forward_flops(all, "decoder layer (global)"),
                 f5 = forward_flops(grouped, "decoder layer (global)"),
                 fl = forward_flops(loop, "decoder layer (global)");
    const double attention = [&] {
      double a = 0;
      for (const auto& o : test::section_named(all, "decoder layer (global)").ops)
        if (o.phase == Phase::forward && o.kind == OpKind::gemm &&
            o.name.find("expert") == std::string::npos)
          a += kernel_flops(o.kernel);
      return a;
    }();
    CHECK((f4 - attention) / (f5 - attention) == doctest::Approx(32.0 / 4).epsilon(0.01));
    CHECK(fl == doctest::Approx(f5).epsilon(0.01));
    const GraphSection& dense = test::section_named(all, "decoder layer (global)");
    CHECK(first_op(dense, "repeat (every expert)", Phase::forward) != nullptr);
    CHECK(first_op(dense, "router scores", Phase::forward) != nullptr);  // scattered into zeros
    CHECK(first_op(test::section_named(grouped, "decoder layer (global)"), "router scores",
                   Phase::forward) == nullptr);
  }

  TEST_CASE("a sink column joins each softmax; sliding layers decode against the window") {
    const ModelConfig& m = find_model("gpt-oss-20b");
    const OpGraph prefill = build_op_graph(m, make_workload(Mode::prefill, 1, 300));
    const GraphOp* softmax =
        first_op(test::section_named(prefill, "decoder layer (global)"), "softmax", Phase::forward);
    REQUIRE(softmax != nullptr);
    CHECK(softmax->kernel.dims[1] == 301);  // 300 keys and the sink
    CHECK(first_op(test::section_named(prefill, "decoder layer (global)"), "sinks cat",
                   Phase::forward) != nullptr);
    const OpGraph decode = build_op_graph(m, make_workload(Mode::decode, 1, 1000));
    auto keys = [&](const std::string& section) {
      const GraphOp* qk =
          first_op(test::section_named(decode, section), "matmul (q k^T)", Phase::forward);
      REQUIRE(qk != nullptr);
      return qk->kernel.dims[3];
    };
    CHECK(keys("decoder layer (sliding)") == 128);
    CHECK(keys("decoder layer (global)") == 1001);  // the cache and the new token
  }

  TEST_CASE("training picks each expert's stacked weights; their gradients are whole-parameter") {
    const Workload w = make_workload(Mode::training, 1, 256);
    for (const int major : {4, 5}) {
      CAPTURE(major);
      ModelConfig m = find_model("gpt-oss-20b");
      m.transformers_major = major;
      const OpGraph g = build_op_graph(m, w);
      const GraphSection& layer = test::section_named(g, "decoder layer (global)");
      // the loop runs every expert that 256 x 4 assignments reach: all 32
      const int picks = count_named(layer, "gate_up_proj[expert_idx]", Phase::backward);
      CHECK(picks == 3 * 32);  // zeros, index_put, add for each expert
      const GraphOp* zeros = first_op(layer, "gate_up_proj[expert_idx]", Phase::backward);
      REQUIRE(zeros != nullptr);
      // the whole stacked parameter (32 x 2880 x 5760) in zeros
      CHECK(zeros->mem_elements == doctest::Approx(32.0 * 2880 * 5760));
      // transformers 4 copies the slice by an index kernel, 5 reads a 0-d index on the host
      const GraphOp* pick = first_op(
          layer, major < 5 ? "gate_up_proj[expert_idx]" : "gate_up_proj[expert_idx] (item)",
          Phase::forward);
      REQUIRE(pick != nullptr);
      CHECK(pick->host_sync == (major >= 5));
    }
  }

  TEST_CASE("served in NVFP4 on a B200: every expert's weights at 0.5625 bytes; forecasts") {
    const ModelConfig& m = find_model("gpt-oss-120b");
    ServingRequest r;
    r.prompt = 1024;
    r.output = 128;
    r.batch = 8;
    r.dtype = DataType::fp4;
    r.engine = Engine::fused;
    const ServingForecast f = forecast_serving(find_gpu("b200"), m, r);
    // 116.8B parameters, of which the experts (all but ~2.2B) are quantized
    CHECK(f.memory.weights_gb < 0.5625 * 116.8 + 2 * 2.2 + 1);
    CHECK(f.memory.weights_gb > 0.5625 * 114.0);
    CHECK(f.prefill_ms > 0);
    CHECK(f.decode_ms_per_token > 0);
    CHECK(detail::quantized_param_count(m, detail::ServingTypes{}) >
          0.98 * (m.params() - 2.0 * 201088 * 2880));
  }
}

}  // namespace gpt_oss_test
