// What the operator graph records besides kernels: the parameters each op holds
// (summed, they are the model's parameter count) and the bytes each op keeps for
// the backward pass (summed, the activation memory of a training step).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "support/helpers.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {

Workload inference(std::int64_t batch, std::int64_t seq) {
  return make_workload(Mode::inference, batch, seq);
}

}  // namespace

TEST_SUITE("graph_memory") {
  TEST_CASE("parameters summed over the graph equal the published counts") {
    // Hugging Face's num_parameters() of the model classes the graphs follow
    // (tied embeddings counted once; BERT: sequence classifier with 2 labels for
    // inference, the pre-training heads for training).
    const std::map<std::string, double> published = {
        {"gpt2", 124439808},
        {"gpt2-medium", 354823168},
        {"gpt2-large", 774030080},
        {"gpt2-xl", 1557611200},
        {"opt-1.3b", 1315758080},
        {"llama2-7b", 6738415616},
        {"llama2-13b", 13015864320},
        {"llama2-70b", 68976648192},
        {"llama3-8b", 8030261248},
        {"llama3-70b", 70553706496},
        {"mistral-7b", 7241732096},
        {"qwen2-7b", 7615616512},
        {"mistral-7b-v0.3", 7248023552},  // v0.1 with 768 more vocabulary rows, in and out
        {"bert-base", 109483778},         // BertForSequenceClassification
    };
    for (const auto& [id, want] : published) {
      CAPTURE(id);
      CHECK(graph_param_count(build_op_graph(find_model(id), inference(1, 16))) == want);
    }
    // BertForPreTraining: the MLM decoder's weight is the word embedding, its bias is own.
    CHECK(graph_param_count(build_op_graph(find_model("bert-base"), test::training(1, 16))) ==
          110106428);
  }

  TEST_CASE("every zoo model's graph holds ModelConfig::params() within 2%") {
    // params() counts the weight matrices and the token embedding only; biases,
    // norms, position tables, BERT's pooler and heads, Switch's router and relative
    // position tables come on top (largest: BERT base with its pre-training heads, +1.6%). Tied
    // weights count once.
    for (const auto& m : model_zoo()) {
      CAPTURE(m.id);
      for (const bool train : {false, true}) {
        CAPTURE(train);
        const double got = graph_param_count(
            build_op_graph(m, make_workload(train ? Mode::training : Mode::inference, 1, 32)));
        CHECK(got >= m.params());
        CHECK(got <= m.params() * 1.02);
      }
    }
  }

  TEST_CASE("weights repeat with the layers, not with the workload") {
    const ModelConfig& m = find_model("gpt3-xl");
    const double p = graph_param_count(build_op_graph(m, inference(1, 128)));
    CHECK(graph_param_count(build_op_graph(m, inference(4, 2048))) == p);
    CHECK(graph_param_count(build_op_graph(m, test::training(2, 512))) == p);
  }

  TEST_CASE("activation bytes grow linearly with batch; inference keeps none") {
    for (const auto& m : model_zoo()) {
      CAPTURE(m.id);
      const double s1 = graph_saved_bytes(build_op_graph(m, test::training(1, 128)));
      const double s2 = graph_saved_bytes(build_op_graph(m, test::training(2, 128)));
      const double s4 = graph_saved_bytes(build_op_graph(m, test::training(4, 128)));
      CHECK(s1 > 0);
      CHECK(graph_saved_bytes(build_op_graph(m, inference(4, 128))) == 0);
      if (m.architecture == Architecture::mixtral || m.architecture == Architecture::qwen2_moe) {
        // top-k experts: each active expert's rows are rounded up to whole rows (128 x 4 / 60
        // = 8.5 -> 9 for Qwen1.5-MoE), so the steps are equal only to within that rounding
        CHECK(s4 - s2 == doctest::Approx(2 * (s2 - s1)).epsilon(0.05));
        CHECK(s2 > s1);
        continue;
      }
      // affine in batch: equal steps. The batch-free part (position ids, the
      // relative position buckets) is under 0.1% of one sequence's activations.
      CHECK(s4 - s2 == doctest::Approx(2 * (s2 - s1)).epsilon(1e-12));
      CHECK(2 * s1 - s2 >= 0);
      CHECK(2 * s1 - s2 < 1e-3 * s1);
    }
  }

  TEST_CASE("hand-checked activation bytes of a tiny GPT-2 layer") {
    // H=8, 2 heads (hd 4), F=32, V=10, batch 1, seq 4 -> R = 4 rows, dropout 0.1.
    const char* cfg = R"({"model_type":"gpt2","n_embd":8,"n_head":2,"n_layer":1,
                          "n_inner":32,"vocab_size":10,"n_positions":16})";
    const OpGraph g = build_op_graph(parse_model_config(cfg, "tiny"), test::training(1, 4));
    REQUIRE(g.sections.size() == 3);
    double layer = 0;
    for (const auto& o : g.sections[1].ops) layer += o.saved_bytes;
    // FP32 elements: ln_1 32 + 2*4 (mean, rstd); c_attn input 32; q k^T 2*(2*4*4) = 64;
    // softmax output 2*4*4 = 32; attn v: probabilities 32 + v 32 = 64; c_proj input 32;
    // ln_2 40; c_fc 32; gelu_new pow 128, tanh 128, final mul 2*128; mlp c_proj 128.
    const double floats = 40 + 32 + 64 + 32 + 64 + 32 + 40 + 32 + 128 + 128 + 256 + 128;
    // dropout masks (1 byte an element): attention 32, residual 32, mlp 32.
    const double masks = 32 + 32 + 32;
    CHECK(layer == 4 * floats + masks);
  }
}
