// Command R and R+ (Cohere's architecture, docs/models.md): the zoo configs against the published
// sizes, the eager graph's parallel layer on one FP32 LayerNorm, its logit scale, R+'s per-head q
// and k norms, the FP32 rotary of a half forward, the optimised engine's q/k norms, and the
// config words read or refused.
#include <doctest/doctest.h>

#include <string>

#include "support/helpers.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {

// A Command R config with one field set (a text to parse).
std::string command_r_with(const std::string& field) {
  return R"({"model_type": "cohere", "architectures": ["CohereForCausalLM"], "hidden_size": 512,
             "intermediate_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
             "num_key_value_heads": 2, "vocab_size": 1000)" +
         (field.empty() ? "" : ", " + field) + "}";
}

Workload bf16_inference(std::int64_t seq) {
  Workload w = make_workload(Mode::inference, 1, seq);
  w.dtype = DataType::bf16;
  return w;
}

}  // namespace

TEST_SUITE("cohere") {
  TEST_CASE("the zoo's Command R and R+ are the published sizes") {
    const ModelConfig& r = find_model("CohereForAI/c4ai-command-r-08-2024");
    CHECK(r.architecture == Architecture::cohere);
    CHECK(r.tie_word_embeddings);  // CohereConfig's default; the config leaves it out
    CHECK(r.logit_scale == doctest::Approx(0.0625));
    CHECK_FALSE(qk_norm(r));
    // a "32 billion parameter" model and a "104 billion" one (the CohereForAI model cards of
    // c4ai-command-r-08-2024 and c4ai-command-r-plus-08-2024, rounded): 32.30B and 103.81B here
    CHECK(r.params() / 1e9 == doctest::Approx(32).epsilon(0.015));
    const ModelConfig& plus = find_model("command-r-plus");
    CHECK(qk_norm(plus));
    CHECK(plus.params() / 1e9 == doctest::Approx(104).epsilon(0.005));
  }

  TEST_CASE("eager: attention and MLP in parallel on one spelt-out FP32 LayerNorm, logits scaled") {
    const ModelConfig& r = find_model("command-r");
    const OpGraph fp32 = build_op_graph(r, make_workload(Mode::inference, 1, 64));
    // one norm a layer: mean, x - mean, its square, the variance, + eps, rsqrt, x - mean, the
    // product, the weight's multiply; no post-attention norm
    CHECK(test::count_ops(fp32, "input_layernorm") == 40 * 9);
    CHECK(test::count_ops(fp32, "post_attention_layernorm") == 0);
    CHECK(test::count_ops(fp32, "norm") == 9);
    // both outputs join the residual: two adds a layer, as GPT-J's
    CHECK(test::count_ops(fp32, "residual add") == 40 * 2);
    CHECK(test::count_ops(fp32, "logit_scale") == 1);
    CHECK(test::count_ops(fp32, "q_norm") == 0);
    // a pure BF16 forward: the norm casts in, casts its weight and casts out; q and k are cast to
    // FP32 for rotary and back
    const OpGraph bf16 = build_op_graph(r, bf16_inference(64));
    CHECK(test::count_ops(bf16, "input_layernorm") == 40 * 12);
    CHECK(test::count_ops(bf16, "rotary (q)") == test::count_ops(fp32, "rotary (q)") + 40 * 2);
    CHECK(test::count_ops(bf16, "rotary (k)") == test::count_ops(fp32, "rotary (k)") + 40 * 2);
    // training builds, its parameters the config's
    const OpGraph t = build_op_graph(r, make_workload(Mode::training, 1, 64));
    CHECK(graph_param_count(t) == doctest::Approx(r.params()).epsilon(0.01));
  }

  TEST_CASE("R+ norms q and k per head, eager and in the optimised engine") {
    const ModelConfig& plus = find_model("command-r-plus");
    const OpGraph g = build_op_graph(plus, make_workload(Mode::inference, 1, 64));
    CHECK(test::count_ops(g, "q_norm") == 64 * 9);
    CHECK(test::count_ops(g, "k_norm") == 64 * 9);
    const OpGraph decode =
        build_engine_graph(plus, make_workload(Mode::decode, 1, 1, 65), Engine::fused);
    CHECK(test::count_ops(decode, "q_norm") == 64);
    CHECK(test::count_ops(decode, "k_norm") == 64);
    const OpGraph r_decode = build_engine_graph(
        find_model("command-r"), make_workload(Mode::decode, 1, 1, 65), Engine::fused);
    CHECK(test::count_ops(r_decode, "q_norm") == 0);
  }

  TEST_CASE("config words: use_qk_norm and logit_scale read, bad values named") {
    CHECK(test::config_error(command_r_with("")) == "");
    const ModelConfig absent = parse_model_config(command_r_with(""), "config.json");
    CHECK(absent.logit_scale == doctest::Approx(0.0625));  // the config class's default
    CHECK_FALSE(qk_norm(absent));
    CHECK(qk_norm(parse_model_config(command_r_with(R"("use_qk_norm": true)"), "config.json")));
    const std::string bad = test::config_error(command_r_with(R"("use_qk_norm": "yes")"));
    CHECK(bad.find("use_qk_norm") != std::string::npos);
    const std::string negative = test::config_error(command_r_with(R"("logit_scale": -1)"));
    CHECK(negative.find("logit_scale") != std::string::npos);
  }
}
