// GPT-NeoX and Pythia (docs/models.md): the zoo configs against the published sizes, the eager
// graph's parallel layer on two LayerNorms with rotary on a quarter of each head, the optimised
// engine's second norm, the Megatron engine's refusal, and the config words read or refused.
#include <doctest/doctest.h>

#include <string>

#include "graph/engines/megatron_layer.hpp"
#include "support/helpers.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {

// A small GPT-NeoX config with one field set (a text to parse).
std::string neox_with(const std::string& field) {
  return R"({"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"], "hidden_size": 512,
             "intermediate_size": 2048, "num_hidden_layers": 2, "num_attention_heads": 8,
             "vocab_size": 1000)" +
         (field.empty() ? "" : ", " + field) + "}";
}

// Parameters outside the embedding and the untied head (the Pythia model cards' count), the
// graph's: its biases and norms counted, which ModelConfig::params() leaves out.
double non_embedding(const ModelConfig& m) {
  return graph_param_count(build_op_graph(m, make_workload(Mode::inference, 1, 1))) -
         2.0 * double(m.vocab_size) * double(m.hidden_size);
}

}  // namespace

TEST_SUITE("gpt_neox") {
  TEST_CASE("the zoo's Pythia and GPT-NeoX-20B are the published sizes") {
    // the Pythia model cards' non-embedding parameters: 1.4B 1,208,602,624; 6.9B 6,444,163,072;
    // 12B "11.3B" (EleutherAI/pythia-1.4b, -6.9b, -12b on Hugging Face)
    const ModelConfig& p14 = find_model("EleutherAI/pythia-1.4b");
    CHECK(p14.architecture == Architecture::gpt_neox);
    CHECK(non_embedding(p14) == 1208602624.0);
    const ModelConfig& p69 = find_model("EleutherAI/pythia-6.9b-deduped");
    CHECK(non_embedding(p69) == 6444163072.0);
    CHECK(non_embedding(find_model("pythia-12b")) / 1e9 == doctest::Approx(11.3).epsilon(0.005));
    // GPT-NeoX-20B: 20,556,201,984 parameters in its model card (EleutherAI/gpt-neox-20b)
    const ModelConfig& neox = find_model("EleutherAI/gpt-neox-20b");
    CHECK(neox.params() / 1e9 == doctest::Approx(20.556).epsilon(0.005));
    CHECK((non_embedding(neox) + 2.0 * 50432 * 6144) / 1e9 ==
          doctest::Approx(20.556).epsilon(0.001));
    // 25 % of each 96-feature head turned by rotary; biases; an untied head; two norms
    CHECK(neox.rotary_dim == 24);
    CHECK(neox.attention_bias);
    CHECK(neox.mlp_bias);
    CHECK_FALSE(neox.tie_word_embeddings);
    CHECK(neox.parallel_norms == 2);
    CHECK(p69.rotary_dim == 32);
  }

  TEST_CASE(
      "eager: attention and MLP in parallel on two LayerNorms, a quarter of q and k rotated") {
    const ModelConfig& m = find_model("pythia-6.9b");
    const OpGraph g = build_op_graph(m, make_workload(Mode::inference, 1, 64));
    CHECK(test::count_ops(g, "ln_attn") == 32);
    CHECK(test::count_ops(g, "ln_mlp") == 32);
    // both outputs join the residual: two adds a layer
    CHECK(test::count_ops(g, "residual add") == 32 * 2);
    // the rotated quarter concatenated back to the rest, for q and for k
    CHECK(test::count_ops(g, "rotary cat (q)") == 32);
    CHECK(test::count_ops(g, "rotary cat (k)") == 32);
    for (const auto& s : g.sections)
      for (const auto& o : s.ops)
        if (o.name == "query_key_value") CHECK(o.kernel.dims[3] == 3 * 4096);
    // training builds, its parameters the config's
    const OpGraph t = build_op_graph(m, make_workload(Mode::training, 1, 64));
    CHECK(graph_param_count(t) == doctest::Approx(m.params()).epsilon(0.001));
  }

  TEST_CASE("the optimised engine runs a second norm; the Megatron engine refuses the layer") {
    const ModelConfig& m = find_model("pythia-1.4b");
    const OpGraph decode =
        build_engine_graph(m, make_workload(Mode::decode, 4, 1, 100), Engine::fused);
    CHECK(test::count_ops(decode, "norm (mlp)") == 24);
    CHECK(test::count_ops(decode, "attention + mlp") == 24);
    const std::string err = test::error_of([&] { (void)detail::megatron_shape(m); });
    CHECK(err.find("gpt_neox") != std::string::npos);
    CHECK(err.find("in parallel") != std::string::npos);
  }

  TEST_CASE("config words: rotary_pct and use_parallel_residual read, bad values named") {
    CHECK(test::config_error(neox_with("")) == "");
    // rotary_pct absent: the config class's 0.25 of each 64-feature head
    CHECK(parse_model_config(neox_with(""), "config.json").rotary_dim == 16);
    CHECK(parse_model_config(neox_with(R"("rotary_pct": 1.0)"), "config.json").rotary_dim == 0);
    CHECK(parse_model_config(neox_with(R"("rotary_pct": 0.5)"), "config.json").rotary_dim == 32);
    const std::string none = test::config_error(neox_with(R"("rotary_pct": 0.01)"));
    CHECK(none.find("'rotary_pct'") != std::string::npos);
    CHECK(none.find("even count of at least 2") != std::string::npos);
    CHECK(none.find("(0.01)") != std::string::npos);  // the value as written, not 0.010000
    CHECK(test::config_error(neox_with(R"("rotary_pct": 1.5)")).find("rotary_pct") !=
          std::string::npos);
    const std::string sequential =
        test::config_error(neox_with(R"("use_parallel_residual": false)"));
    CHECK(sequential.find("'use_parallel_residual'") != std::string::npos);
    CHECK(sequential.find("allowed: true") != std::string::npos);
    // attention biases as attention_bias says, the MLP's always
    const ModelConfig plain =
        parse_model_config(neox_with(R"("attention_bias": false)"), "config.json");
    CHECK_FALSE(plain.attention_bias);
    CHECK(plain.mlp_bias);
  }
}
