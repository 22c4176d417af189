// The eager Mixtral / Qwen2-MoE expert loop's host synchronisations (graph/blocks/moe.cpp):
// how many each layer lists per transformers release, where they sit, the kernels' byte counts,
// and that the replay with them is slower than without. No measured Mixtral or Qwen2-MoE run
// exists in the project: these check the graph and the replay, not the figures.
#include <doctest/doctest.h>

#include <string>

#include "support/helpers.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {

ModelConfig mixtral(int transformers_major) {
  ModelConfig m = find_model("mixtral-8x7b");
  m.transformers_major = transformers_major;
  return m;
}

const GraphSection& experts_section(const OpGraph& g) {
  return test::section_named(g, "decoder layer (experts)");
}

int host_syncs(const GraphSection& s) {
  int n = 0;
  for (const auto& o : s.ops) n += o.host_sync ? 1 : 0;
  return n;
}

int named(const GraphSection& s, const std::string& name) {
  int n = 0;
  for (const auto& o : s.ops) n += o.name == name ? 1 : 0;
  return n;
}

}  // namespace

TEST_SUITE("moe_sync") {
  TEST_CASE("each Mixtral layer waits for the host as its release's expert loop reads values") {
    // batch 2 x seq 32: 64 tokens x top-2 over 8 experts, all 8 hit with 16 tokens each
    const Workload w = make_workload(Mode::inference, 2, 32);
    const OpGraph g4 = build_op_graph(mixtral(4), w), g5 = build_op_graph(mixtral(5), w);
    const GraphSection &s4 = experts_section(g4), &s5 = experts_section(g5);
    // the experts hit (nonzero); per expert transformers 4: .item() of the module index and
    // torch.where; transformers 5: the `== num_experts` bool, three 0-d index reads, torch.where
    CHECK(host_syncs(s4) == 1 + 2 * 8);
    CHECK(host_syncs(s5) == 1 + 5 * 8);
    CHECK(named(s4, "expert where") == 3 * 8);  // counting pass, the count's copy, writing pass
    CHECK(named(s5, "expert gate_up_proj") == 8);
    // one decode token of one sequence: 2 experts hit
    const OpGraph decode = build_op_graph(mixtral(4), make_workload(Mode::decode, 1, 1, 100));
    CHECK(host_syncs(experts_section(decode)) == 1 + 2 * 2);
    // the dense sections (embeddings, head) wait for nothing
    for (const auto& s : g4.sections)
      if (s.name != "decoder layer (experts)") CHECK(host_syncs(s) == 0);
  }

  TEST_CASE("the expert loop's kernels read and write what the code touches") {
    // FP32 inference: elements are 4 bytes, an int64 two
    const Workload w = make_workload(Mode::inference, 2, 32);
    const OpGraph g = build_op_graph(mixtral(4), w);
    const GraphSection& s = experts_section(g);
    const double rows = 16, h = 4096, assigned = 64 * 2;
    for (const auto& o : s.ops) {
      if (o.host_sync) CHECK(o.mem_elements == 4);  // an int64 there and back
      if (o.name == "expert gather") CHECK(o.mem_elements == 2 * rows * h + rows * 2);
      if (o.name == "expert index_add") CHECK(o.mem_elements == 3 * rows * h + rows * 2);
      if (o.name == "expert mask") CHECK(o.mem_elements == 2 * assigned * 2 + 2);
      if (o.name == "one_hot expert mask" && o.stands_for == "zeros")
        CHECK(o.mem_elements == assigned * 8 * 2);
    }
  }

  TEST_CASE("transformers 5's selects of stacked weights: whole-parameter gradients") {
    // training: select's backward writes the stacked parameter's gradient in zeros (8 experts x
    // 2 x 14336 x 4096 for gate_up_proj), puts the expert's slice in and adds it to the others';
    // transformers 4's experts are modules of their own, their gradients their own
    const Workload w = make_workload(Mode::training, 1, 64);
    const OpGraph g5 = build_op_graph(mixtral(5), w), g4 = build_op_graph(mixtral(4), w);
    const GraphSection& s = experts_section(g5);
    int zeros = 0;
    for (const auto& o : s.ops)
      if (o.name == "gate_up_proj[expert_idx]" && o.phase == Phase::backward &&
          o.stands_for == "zeros (the stacked gradient)") {
        ++zeros;
        CHECK(o.mem_elements == doctest::Approx(8.0 * 2 * 14336 * 4096));
      }
    CHECK(zeros == 8);  // 64 tokens x 2 reach all 8 experts
    CHECK(named(experts_section(g4), "gate_up_proj[expert_idx]") == 0);
    // inference: the selects' host reads only
    const OpGraph inference = build_op_graph(mixtral(5), make_workload(Mode::inference, 1, 64));
    for (const auto& o : experts_section(inference).ops)
      if (o.name == "gate_up_proj[expert_idx]") CHECK(o.phase == Phase::forward);
  }

  TEST_CASE("the host syncs slow the eager replay") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    for (const Mode mode : {Mode::inference, Mode::decode}) {
      const Workload w = mode == Mode::decode ? make_workload(Mode::decode, 2, 1, 512)
                                              : make_workload(Mode::inference, 2, 512);
      const OpGraph g = build_op_graph(mixtral(4), w);
      int syncs = 0;
      const OpGraph no_sync = test::without_host_syncs(g, syncs);
      CHECK(syncs == 32 * (1 + 2 * (mode == Mode::decode ? 4 : 8)));
      const double with_ms = forecast_graph(gpu, g, w, Predictor::tilecast).latency_ms;
      const double without_ms = forecast_graph(gpu, no_sync, w, Predictor::tilecast).latency_ms;
      // each sync costs at least its own copy's launch, at most a few launches of idle GPU
      CHECK(with_ms - without_ms > 0.01 * syncs);
      CHECK(with_ms - without_ms < 0.2 * syncs);
    }
  }
}
