// Hugging Face config parsing, the embedded zoo, and bad input.
#include "tilecast/model_config.hpp"

#include <doctest/doctest.h>

#include <string>

#include "support/helpers.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

const char* kLlama = R"({"architectures":["LlamaForCausalLM"],"hidden_size":4096,
  "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,
  "intermediate_size":14336,"vocab_size":128256})";

}  // namespace

TEST_SUITE("model_config") {
  TEST_CASE("reads every dataset model config") {
    for (const char* m : {"bert", "bert_large", "gpt2_large", "gpt2_med", "gpt2_xl", "gpt3_13",
                          "gpt3_27", "gpt3_67", "gpt3_xl", "opt", "opt_13", "switchxl4"}) {
      CAPTURE(m);
      const std::string path = test::data_dir() + "/models/" + m + ".json";
      const ModelConfig c = parse_model_config(test::read_file(path), path);
      CHECK(c.hidden_size > 0);
      CHECK(c.num_layers > 0);
    }
  }

  TEST_CASE("detects architectures and reads their fields") {
    const ModelConfig l = parse_model_config(kLlama, "x");
    CHECK(l.architecture == Architecture::llama);
    CHECK(l.num_kv_heads == 8);
    CHECK(l.head_dim == 128);
    CHECK(l.activation == Activation::silu);
    CHECK(l.params() / 1e9 == doctest::Approx(8.03).epsilon(0.01));
    const ModelConfig g = parse_model_config(
        R"({"model_type":"gpt2","n_embd":2560,"n_layer":32,"n_head":32,"vocab_size":50257})", "x");
    CHECK(g.architecture == Architecture::gpt2);
    CHECK(g.intermediate_size == 4 * 2560);
    const ModelConfig s = find_model("switchxl4");
    CHECK(s.architecture == Architecture::switch_transformers);
    CHECK(s.num_experts == 4);
    CHECK(is_sparse_layer(2, 1));
    CHECK_FALSE(is_sparse_layer(2, 0));
    CHECK(is_sparse_layer(1, 0));
    CHECK(find_model("qwen2-7b").attention_bias);
    CHECK(find_model("mistral-7b").architecture == Architecture::mistral);
  }

  TEST_CASE("zoo names resolve case-insensitively by id, name or alias") {
    CHECK(find_model("gpt3-2.7b").id == "gpt3-2.7b");
    CHECK(find_model("GPT3_27").id == "gpt3-2.7b");
    CHECK(find_model("GPT-3 2.7B").id == "gpt3-2.7b");
    CHECK(find_model("meta-llama/Llama-2-7b-hf").id == "llama2-7b");
    CHECK(find_model("bert_large").id == "bert-large");
    // checkpoints of zoo models: owners, release and quantization suffixes
    CHECK(find_model("meta-llama/Llama-3.1-70B-Instruct").id == "llama3.1-70b");
    CHECK(find_model("nvidia/Llama-3.3-70B-Instruct-FP8").id == "llama3.3-70b");
    CHECK(find_model("amd/Llama-3.1-405B-Instruct-FP8-KV").id == "llama3.1-405b");
    CHECK(find_model("nvidia/Llama-3.1-8B-Instruct-FP4").id == "llama3.1-8b");
    CHECK(find_model("Meta-Llama-3-8B-Instruct").id == "llama3-8b");
    CHECK(find_model("mistralai/Mixtral-8x7B-Instruct-v0.1").id == "mixtral-8x7b");
    CHECK_THROWS_AS(find_model("meta-llama/Llama-3.1-13B-Instruct"), Error);  // no such zoo model
    CHECK(model_zoo().size() >= 19);
    try {  // a near miss: the close names (closest_names_test)
      find_model("gpt-5");
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("did you mean gpt2") != std::string::npos);
    }
    try {  // nothing near: the whole zoo
      find_model("no-such-network");
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("gpt3-2.7b") != std::string::npos);
    }
  }

  TEST_CASE("bad configs name the field or list the architectures") {
    CHECK(test::config_error("not json").find("not valid JSON") != std::string::npos);
    CHECK(test::config_error("[1,2]").find("expected a JSON object") != std::string::npos);
    CHECK(test::config_error(R"({"model_type":"t5"})").find("supported: gpt2, bert, opt, llama") !=
          std::string::npos);
    CHECK(test::config_error(R"({"architectures":["MambaForCausalLM"]})").find("supported") !=
          std::string::npos);
    CHECK(test::config_error(R"({"model_type":"llama","num_hidden_layers":2,"num_attention_heads":2,
                       "intermediate_size":8,"vocab_size":10})")
              .find("'hidden_size' is missing") != std::string::npos);
    CHECK(test::config_error(
              R"({"model_type":"gpt2","n_embd":64,"n_layer":0,"n_head":2,"vocab_size":10})")
              .find("'n_layer'") != std::string::npos);
    CHECK(test::config_error(
              R"({"model_type":"gpt2","n_embd":-64,"n_layer":1,"n_head":2,"vocab_size":10})")
              .find("'n_embd'") != std::string::npos);
    CHECK(test::config_error(
              R"({"model_type":"gpt2","n_embd":64.5,"n_layer":1,"n_head":2,"vocab_size":10})")
              .find("must be an integer") != std::string::npos);
    CHECK(test::config_error(
              R"({"model_type":"gpt2","n_embd":"64","n_layer":1,"n_head":2,"vocab_size":10})")
              .find("'n_embd'") != std::string::npos);
    CHECK(test::config_error(
              R"({"model_type":"gpt2","n_embd":64,"n_layer":1,"n_head":5,"vocab_size":10})")
              .find("does not divide") != std::string::npos);
    CHECK(test::config_error(R"({"model_type":"gpt2","n_embd":64,"n_layer":1,"n_head":4})")
              .find("'vocab_size' is missing") != std::string::npos);
    CHECK(test::config_error(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,
                       "num_attention_heads":4,"num_key_value_heads":3,"intermediate_size":8,
                       "vocab_size":10})")
              .find("num_key_value_heads") != std::string::npos);
    CHECK(test::config_error(
              R"({"model_type":"gpt2","n_embd":1e300,"n_layer":1,"n_head":4,"vocab_size":10})")
              .find("'n_embd'") != std::string::npos);
    CHECK(test::config_error(R"({"model_type":"bert","hidden_size":64,"num_hidden_layers":1,
                       "num_attention_heads":4,"vocab_size":10,"hidden_act":"mish"})")
              .find("hidden_act") != std::string::npos);
    std::string deep(200, '[');
    CHECK(test::config_error(deep).find("JSON") != std::string::npos);
  }
}
