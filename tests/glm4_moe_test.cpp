// GLM-4.5 and GLM-4.5-Air (glm4_moe, docs/models.md): the zoo configs' shapes and parameters
// against the configs' own arithmetic and the published totals, the eager graph's half rotary,
// per-head q/k norms (4.5 only) and ungated shared expert, the optimised engine's decode, and
// the config words read or refused.
#include <doctest/doctest.h>

#include <string>

#include "model/architectures.hpp"
#include "support/helpers.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {

// A small GLM-4.5 config with one field set (a text to parse).
std::string glm_with(const std::string& field) {
  return R"({"model_type": "glm4_moe", "architectures": ["Glm4MoeForCausalLM"], "hidden_size": 512,
             "intermediate_size": 1024, "moe_intermediate_size": 128, "num_hidden_layers": 3,
             "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1000,
             "n_routed_experts": 8, "n_shared_experts": 1, "num_experts_per_tok": 2,
             "first_k_dense_replace": 1, "attention_bias": true)" +
         (field.empty() ? "" : ", " + field) + "}";
}

// The parameters of a glm4_moe config, written out: untied embeddings, per layer q/k/v with
// biases and o without (counted with one, as the model's attention_bias counts it), the q/k head
// norms where used, two RMSNorms, then a dense SwiGLU MLP on the first `dense` layers and on the
// others `experts` SwiGLU experts, one shared, and the router with its score-correction bias.
double glm_params(double h, double inter, double expert, double layers, double dense,
                  double experts, double heads, double kv, double hd, double vocab, bool qk) {
  const double attn = h * heads * hd + 2 * h * kv * hd + heads * hd * h + heads * hd + 2 * kv * hd +
                      h + (qk ? 2 * hd : 0) + 2 * h;
  const double moe = (experts + 1) * 3 * h * expert + experts * h;
  return 2 * vocab * h + h + layers * attn + dense * 3 * h * inter + (layers - dense) * moe;
}

}  // namespace

TEST_SUITE("glm4_moe") {
  TEST_CASE("GLM-4.5: 92 layers, 3 dense, 160 experts and a shared one, QK-Norm, half rotary") {
    const ModelConfig& m = find_model("zai-org/GLM-4.5");
    CHECK(m.id == "glm-4.5");
    CHECK(m.architecture == Architecture::glm4_moe);
    CHECK(rotary_features(m) == 64);
    CHECK(qk_norm(m));
    CHECK(m.attention_bias);
    CHECK_FALSE(m.mlp_bias);
    CHECK(m.num_experts == 160);
    CHECK(m.experts_per_token == 8);
    CHECK(m.shared_expert_intermediate_size == 1536);
    for (std::int64_t i : {0, 1, 2}) CHECK_FALSE(is_moe_layer(m, i));
    for (std::int64_t i : {3, 91}) CHECK(is_moe_layer(m, i));
    const double expected = glm_params(5120, 12288, 1536, 92, 3, 160, 96, 8, 128, 151552, true);
    CHECK(m.params() == doctest::Approx(expected).epsilon(1e-4));
    // Z.ai's 355B (GLM-4.5 report, arXiv:2508.06471, Table 1) counts the multi-token-prediction
    // layer and leaves out the embeddings and output layer: 352.8B here, with both and no MTP
    CHECK(m.params() / 1e9 == doctest::Approx(352.8).epsilon(0.001));
  }

  TEST_CASE("GLM-4.5-Air: 46 layers, 1 dense, 128 experts, no QK-Norm") {
    const ModelConfig& m = find_model("glm-4.5-air");
    CHECK(m.architecture == Architecture::glm4_moe);
    CHECK_FALSE(qk_norm(m));
    CHECK(rotary_features(m) == 64);
    CHECK_FALSE(is_moe_layer(m, 0));
    CHECK(is_moe_layer(m, 1));
    const double expected = glm_params(4096, 10944, 1408, 46, 1, 128, 96, 8, 128, 151552, false);
    CHECK(m.params() == doctest::Approx(expected).epsilon(1e-4));
    CHECK(m.params() / 1e9 == doctest::Approx(106).epsilon(0.01));  // the report's 106B
  }

  TEST_CASE("eager: half rotary, q/k norms where the config asks, an ungated shared expert") {
    const OpGraph g = build_op_graph(find_model("glm-4.5"), make_workload(Mode::inference, 1, 64));
    CHECK(test::count_ops(g, "rotary cat (q)") == 92);  // the unrotated half joined back
    CHECK(test::count_ops(g, "q_norm") > 0);
    CHECK(test::count_ops(g, "q_norm") == test::count_ops(g, "k_norm"));
    CHECK(test::count_ops(g, "shared gate_proj") == 89);
    CHECK(test::count_ops(g, "shared_expert_gate") == 0);
    const ModelConfig& air = find_model("glm-4.5-air");
    CHECK(test::count_ops(build_op_graph(air, make_workload(Mode::inference, 1, 64)), "q_norm") ==
          0);
    const OpGraph t = build_op_graph(air, make_workload(Mode::training, 1, 64));
    CHECK(graph_param_count(t) == doctest::Approx(air.params()).epsilon(0.01));
  }

  TEST_CASE("the optimised engine decodes it: q/k norms once a layer") {
    const ModelConfig& m = find_model("glm-4.5");
    const OpGraph decode =
        build_engine_graph(m, make_workload(Mode::decode, 1, 1, 65), Engine::fused);
    CHECK(test::count_ops(decode, "q_norm") == 92);
    CHECK(test::count_ops(decode, "k_norm") == 92);
    CHECK(test::count_ops(decode, "rotary cat (q)") == 0);  // one fused rotary kernel a layer
  }

  TEST_CASE("config words: partial_rotary_factor's default and bounds, use_qk_norm") {
    CHECK(test::config_error(glm_with("")) == "");
    const ModelConfig absent = parse_model_config(glm_with(""), "config.json");
    CHECK(rotary_features(absent) == 32);  // Glm4MoeConfig's default 0.5 of 64
    CHECK_FALSE(qk_norm(absent));
    CHECK(rotary_features(parse_model_config(glm_with(R"("partial_rotary_factor": 1.0)"),
                                             "config.json")) == 64);
    CHECK(qk_norm(parse_model_config(glm_with(R"("use_qk_norm": true)"), "config.json")));
    const std::string odd = test::config_error(glm_with(R"("partial_rotary_factor": 0.05)"));
    CHECK(odd.find("partial_rotary_factor") != std::string::npos);
    CHECK(odd.find("allowed") != std::string::npos);
    CHECK(test::config_error(glm_with(R"("use_qk_norm": "yes")")).find("use_qk_norm") !=
          std::string::npos);
  }
}
