// The issue-12 models (Mixtral, Qwen1.5-MoE, Gemma, Gemma 2, Phi-3) and GPT-J: zoo configs parse,
// parameter counts match the published totals, graphs build and forecast in every mode and both
// serving engines, tensor parallelism shards experts, the sliding-window KV cache, and unsupported
// config fields are errors that name the field.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "graph/blocks/blocks.hpp"
#include "graph/engines/megatron_layer.hpp"
#include "support/helpers.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/serving.hpp"

using namespace tilecast;

namespace {

double graph_params(const ModelConfig& m) {
  return graph_param_count(build_op_graph(m, make_workload(Mode::inference, 1, 1)));
}

const char* const kNew[] = {"mixtral-8x7b", "qwen1.5-moe-a2.7b", "gemma-7b",
                            "gemma2-9b",    "phi3-mini-4k",      "gptj-6b"};

}  // namespace

TEST_SUITE("models") {
  TEST_CASE("zoo configs parse into the right architectures and fields") {
    const ModelConfig mx = find_model("mixtral-8x7b");
    CHECK(mx.architecture == Architecture::mixtral);
    CHECK(mx.num_experts == 8);
    CHECK(mx.experts_per_token == 2);
    CHECK(mx.expert_intermediate_size == 14336);
    CHECK(mx.num_kv_heads == 8);
    const ModelConfig q = find_model("Qwen/Qwen1.5-MoE-A2.7B");
    CHECK(q.architecture == Architecture::qwen2_moe);
    CHECK(q.num_experts == 60);
    CHECK(q.experts_per_token == 4);
    CHECK(q.expert_intermediate_size == 1408);
    CHECK(q.shared_expert_intermediate_size == 5632);
    CHECK(q.attention_bias);
    const ModelConfig g = find_model("google/gemma-7b");
    CHECK(g.architecture == Architecture::gemma);
    CHECK(g.head_dim == 256);
    CHECK(g.tie_word_embeddings);
    CHECK(g.activation == Activation::gelu);
    const ModelConfig g2 = find_model("gemma2-9b");
    CHECK(g2.architecture == Architecture::gemma2);
    CHECK(g2.sliding_window == 4096);
    CHECK(g2.attn_logit_softcap == 50.0);
    CHECK(g2.final_logit_softcap == 30.0);
    CHECK(is_sliding_layer(g2, 0));
    CHECK_FALSE(is_sliding_layer(g2, 1));
    const ModelConfig p = find_model("microsoft/Phi-3-mini-4k-instruct");
    CHECK(p.architecture == Architecture::phi3);
    CHECK(p.head_dim == 96);
    // class names alone: the longest prefix wins (Qwen2Moe over Qwen2, Gemma2 over Gemma)
    const std::string base =
        R"("hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,
        "vocab_size":100,"num_experts":4,"moe_intermediate_size":32)";
    CHECK(parse_model_config("{\"architectures\":[\"Qwen2MoeForCausalLM\"]," + base + "}", "x")
              .architecture == Architecture::qwen2_moe);
    CHECK(parse_model_config("{\"architectures\":[\"Gemma2ForCausalLM\"]," + base + "}", "x")
              .architecture == Architecture::gemma2);
  }

  TEST_CASE("parameter counts match the published totals") {
    // Mixtral 8x7B 46.7B (Mistral AI, https://mistral.ai/news/mixtral-of-experts/); Qwen1.5-MoE-
    // A2.7B 14.3B (https://qwenlm.github.io/blog/qwen-moe/); Gemma 7B 8.54B (Gemma report,
    // arXiv:2403.08295, Table 2: 7,751M non-embedding + 786M embedding); Gemma 2 9B 9.24B (model
    // card / arXiv:2408.00118); Phi-3-mini 3.8B (arXiv:2404.14219; 3.82B in the model card);
    // Llama 3.1 70B 70.6B and 405B 406B (the Hugging Face model pages' safetensors totals of
    // meta-llama/Llama-3.1-70B and -405B; Meta's model card rounds to 70B and 405B); GPT-J 6B
    // 6,053,381,344 (the EleutherAI/gpt-j-6b model card); Mixtral 8x22B 141B (Mistral AI,
    // https://mistral.ai/news/mixtral-8x22b/: 141B total, 39B active); Qwen2-72B 72.71B (Qwen
    // blog, https://qwenlm.github.io/blog/qwen2/); Qwen2.5-7B 7.61B and Qwen2.5-72B 72.7B (the
    // Qwen/Qwen2.5-7B and -72B model cards); Qwen3-30B-A3B 30.5B and Qwen3-235B-A22B 235B (the
    // Qwen/Qwen3-30B-A3B and -235B-A22B model cards: 3.3B and 22B activated); gpt-oss-20b 20.9B
    // and gpt-oss-120b 116.8B (OpenAI, gpt-oss-120b & gpt-oss-20b model card, Table 1: 3.6B and
    // 5.1B active); Qwen3-14B 14.8B and Qwen3-32B 32.8B (the Qwen/Qwen3-14B and -32B model cards:
    // 13.2B and 31.2B non-embedding); Mistral Large 2 123B (Mistral AI,
    // https://mistral.ai/news/mistral-large-2407/); Qwen2.5-14B 14.7B (the Qwen/Qwen2.5-14B model
    // card); Phi-4 14.7B (the microsoft/phi-4 checkpoint's safetensors total); Llama 4 Maverick
    // 400B (Meta's model card, 17B active; the language model's 400.71B, its 0.87B vision tower
    // aside: tests/llama4_test.cpp, where Scout's 109B is checked with its vision tower);
    // Qwen3-Coder-30B-A3B 30.5B and Qwen3-Coder-480B-A35B 480B (the
    // Qwen/Qwen3-Coder-30B-A3B-Instruct and -480B-A35B-Instruct model cards: 3.3B and 35B
    // activated).
    const struct {
      const char* id;
      double billions;
    } kPublished[] = {{"mixtral-8x7b", 46.7},
                      {"qwen1.5-moe-a2.7b", 14.3},
                      {"gemma-7b", 8.54},
                      {"gemma2-9b", 9.24},
                      {"phi3-mini-4k", 3.82},
                      {"llama3.1-70b", 70.6},
                      {"llama3.1-405b", 406},
                      {"gptj-6b", 6.053},
                      {"mixtral-8x22b", 141},
                      {"qwen2-72b", 72.71},
                      {"qwen2.5-7b", 7.61},
                      {"qwen2.5-72b", 72.7},
                      {"qwen3-30b-a3b", 30.5},
                      {"qwen3-235b-a22b", 235},
                      {"gpt-oss-20b", 20.9},
                      {"gpt-oss-120b", 116.8},
                      {"qwen3-14b", 14.8},
                      {"qwen3-32b", 32.8},
                      {"mistral-large-2407", 123},
                      {"qwen2.5-14b", 14.7},
                      {"phi4-14b", 14.7},
                      {"llama4-maverick", 400},
                      {"qwen3-coder-30b-a3b", 30.5},
                      {"qwen3-coder-480b-a35b", 480}};
    for (const auto& p : kPublished) {
      CAPTURE(p.id);
      const ModelConfig m = find_model(p.id);
      CHECK(m.params() / 1e9 == doctest::Approx(p.billions).epsilon(0.005));
      CHECK(graph_params(m) / 1e9 == doctest::Approx(p.billions).epsilon(0.005));
      // every expert resident, whatever the workload routes (idle experts listed on the router)
      CHECK(graph_param_count(build_op_graph(m, make_workload(Mode::training, 2, 512))) ==
            doctest::Approx(graph_params(m)));
      CHECK(graph_param_count(build_op_graph(m, make_workload(Mode::decode, 1, 1, 9))) ==
            doctest::Approx(graph_params(m)));
    }
  }

  TEST_CASE("graphs build and forecast in every mode, FP32 and BF16") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    for (const char* id : kNew) {
      const ModelConfig m = find_model(id);
      for (Mode mode : {Mode::training, Mode::inference, Mode::prefill, Mode::decode}) {
        for (DataType t : {DataType::fp32, DataType::bf16}) {
          CAPTURE(id);
          CAPTURE(mode_name(mode));
          CAPTURE(dtype_name(t));
          Workload w = make_workload(mode, 2, mode == Mode::training ? 256 : 512);
          w.dtype = t;
          const ModelForecast f = forecast_model(h100, m, w, Predictor::tilecast);
          CHECK(std::isfinite(f.latency_ms));
          CHECK(f.latency_ms > 0);
          CHECK(f.flops > 0);
        }
      }
    }
  }

  TEST_CASE("experts run at the routed token counts") {
    const ModelConfig mx = find_model("mixtral-8x7b");
    // 64 tokens x top-2 over 8 experts: 16 rows each, all 8 experts run
    OpGraph g = build_op_graph(mx, make_workload(Mode::inference, 1, 64));
    CHECK(test::count_ops(g, "expert gate_proj") == 8 * 32);
    for (const auto& s : g.sections)
      for (const auto& o : s.ops)
        if (o.name == "expert gate_proj") {
          CHECK(o.kernel.dims[1] == 16);
          CHECK(o.kernel.dims[3] == 14336);
        }
    // one decode token: 2 experts run, one row each
    g = build_op_graph(mx, make_workload(Mode::decode, 1, 1, 100));
    CHECK(test::count_ops(g, "expert gate_proj") == 2 * 32);
    // FLOPs of the expert GEMMs: tokens x k x 3 x 2 x h x f, not x experts
    // the experts hit when each token's top 2 are drawn uniformly: 8 x (1 - (6/8)^T), rounded;
    // 3 tokens: 4.63 -> 5 experts for 6 assignments (one computes 2 rows, four 1)
    detail::MoeSpec s{.hidden = 4096, .experts = 8, .top_k = 2, .expert_inner = 14336};
    CHECK(detail::routed_experts(s, 1).active == 2);
    CHECK(detail::routed_experts(s, 2).active == 4);  // 3.5, rounded half away from zero
    CHECK(detail::routed_experts(s, 3).active == 5);
    CHECK(detail::routed_experts(s, 3).rows(0) == 2);
    CHECK(detail::routed_experts(s, 3).rows(1) == 1);
    CHECK(detail::routed_experts(s, 3).rows(4) == 1);
    CHECK(detail::routed_experts(s, 3).most() == 2);
    CHECK(detail::routed_experts(s, 8).active == 7);  // 7.20
    CHECK(detail::routed_experts(s, 100).active == 8);
    CHECK(detail::routed_experts(s, 100).most() == 25);
    // every assignment computed once: the rows over the experts hit add up to tokens x k
    for (std::int64_t t : {1, 2, 3, 5, 17, 64, 1000}) {
      const detail::RoutedExperts routed = detail::routed_experts(s, t);
      std::int64_t rows = 0;
      for (std::int64_t e = 0; e < routed.active; ++e) rows += routed.rows(e);
      CHECK(rows == 2 * t);
    }
    // Qwen: the shared expert runs on every token; 64 tokens x top-4 over 60 experts hit
    // 60 x (1 - (56/60)^64) = 59.27 -> 59 of them
    const OpGraph qg =
        build_op_graph(find_model("qwen1.5-moe-a2.7b"), make_workload(Mode::inference, 1, 64));
    CHECK(test::count_ops(qg, "shared gate_proj") == 24);
    CHECK(test::count_ops(qg, "expert gate_proj") == 59 * 24);
  }

  TEST_CASE("Gemma 2 decode: sliding layers read at most the window") {
    const ModelConfig g2 = find_model("gemma2-9b");
    const OpGraph g = build_op_graph(g2, make_workload(Mode::decode, 1, 1, 8000));
    bool saw_sliding = false, saw_global = false;
    for (const auto& s : g.sections)
      for (const auto& o : s.ops)
        if (o.name == "matmul (q k^T)") {
          if (s.name == "decoder layer (sliding)") {
            saw_sliding = true;
            CHECK(o.kernel.dims[3] == 4096);
            CHECK(s.count == 21);
          } else {
            saw_global = true;
            CHECK(o.kernel.dims[3] == 8001);
          }
        }
    CHECK(saw_sliding);
    CHECK(saw_global);
  }

  TEST_CASE("Gemma 3: five sliding layers to one global, q and k normed, two rotary tables") {
    const ModelConfig g3 = find_model("google/gemma-3-27b-it");
    CHECK(g3.architecture == Architecture::gemma3_text);
    CHECK(g3.sliding_window == 1024);
    CHECK(g3.sliding_window_pattern == 6);
    CHECK(g3.head_dim == 128);
    CHECK(g3.tie_word_embeddings);
    for (std::int64_t i = 0; i < 12; ++i) {
      CAPTURE(i);
      CHECK(is_sliding_layer(g3, i) == (i != 5 && i != 11));
    }
    // the text model's shapes as transformers prints its modules (Google for Developers, "Gemma
    // explained: What's new in Gemma 3"): a 262,208 x 5,376 table, q and o 5,376 x 4,096, k and v
    // 5,376 x 2,048, three 5,376 x 21,504 MLP matrices, 62 layers: 27.01B without the vision tower
    const double layer = 2.0 * 5376 * 4096 + 2.0 * 5376 * 2048 + 3.0 * 5376 * 21504;
    CHECK(g3.params() == doctest::Approx(262208.0 * 5376 + 62 * layer).epsilon(1e-4));
    const OpGraph g = build_op_graph(g3, make_workload(Mode::decode, 1, 1, 4000));
    // every layer's q_norm, k_norm and four norms: the same kernels as its input norm
    const std::int64_t norm = test::count_ops(g, "input_layernorm");
    CHECK(norm > 0);
    CHECK(norm % 62 == 0);
    for (const char* name :
         {"q_norm", "k_norm", "post_attention_layernorm", "pre_feedforward_layernorm"}) {
      CAPTURE(name);
      CHECK(test::count_ops(g, name) == norm);
    }
    CHECK(test::count_ops(g, "rotary cos/sin (local)") == 1);
    for (const auto& sec : g.sections)
      for (const auto& o : sec.ops)
        if (o.name == "matmul (q k^T)") {
          CAPTURE(sec.name);
          const bool sliding = sec.name == "decoder layer (sliding)";
          CHECK(sec.count == (sliding ? 52 : 10));
          CHECK(o.kernel.dims[3] == (sliding ? 1024 : 4001));
        }
    // the cache: 10 global layers keep every token, 52 sliding ones the window
    ServingRequest r;
    r.prompt = 8000;
    r.output = 192;
    const double per_layer_token = 2.0 * 16 * 128 * 2;
    CHECK(forecast_serving(find_gpu("h100-sxm"), g3, r).memory.kv_cache_gb ==
          doctest::Approx((8192.0 * 10 + 1024.0 * 52) * per_layer_token / 1e9));
  }

  TEST_CASE("a vision-language config is read as its text_config") {
    // google/gemma-3-27b-it's config.json, its vision_config cut short
    const std::string mm = R"({"architectures":["Gemma3ForConditionalGeneration"],
      "model_type":"gemma3","mm_tokens_per_image":256,"_name_or_path":"google/gemma-3-27b-it",
      "text_config":{"head_dim":128,"hidden_size":5376,"intermediate_size":21504,
        "model_type":"gemma3_text","num_attention_heads":32,"num_hidden_layers":62,
        "num_key_value_heads":16,"query_pre_attn_scalar":168,
        "rope_scaling":{"factor":8.0,"rope_type":"linear"},"sliding_window":1024},
      "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152}})";
    const ModelConfig m = parse_model_config(mm, "config.json");
    CHECK(m.language_model_of == "gemma3");
    CHECK(m.name == "google/gemma-3-27b-it");
    CHECK(m.vocab_size == 262208);  // Gemma3TextConfig's default: the text_config leaves it out
    CHECK(m.params() == doctest::Approx(find_model("gemma3-27b").params()));
    CHECK(test::mentions(workload_caveats(m, make_workload(Mode::inference, 1, 8)),
                         "vision encoder"));
    CHECK(find_model("gemma3-27b").language_model_of.empty());
    // a text_config whose model_type no row reads is still an unsupported architecture
    const std::string other = test::config_error(
        R"({"model_type":"mllama","text_config":{"model_type":"mllama_text_model"}})");
    CHECK(other.find("mllama_text_model") != std::string::npos);
    CHECK(other.find("supported: ") != std::string::npos);
    CHECK(other.find(": text_config: ") != std::string::npos);
  }

  TEST_CASE("Gemma 3's layer_types must follow its sliding pattern") {
    const std::string base = R"("model_type":"gemma3_text","hidden_size":64,
      "num_hidden_layers":3,"num_attention_heads":4,"intermediate_size":128,"head_dim":16,
      "sliding_window":8,"sliding_window_pattern":3)";
    CHECK(test::config_error(
              "{" + base +
              R"(,"layer_types":["sliding_attention","sliding_attention","full_attention"]})")
              .empty());
    const std::string off = test::config_error(
        "{" + base + R"(,"layer_types":["full_attention","sliding_attention","full_attention"]})");
    CHECK(off.find("'layer_types' entry 0") != std::string::npos);
    CHECK(off.find("sliding_window_pattern") != std::string::npos);
    CHECK(test::config_error("{" + base + R"(,"layer_types":["sliding_attention"]})")
              .find("every layer (3)") != std::string::npos);
    CHECK(test::config_error("{" + base + R"(,"layer_types":[1,2,3]})").find("allowed: an array") !=
          std::string::npos);
    CHECK(test::config_error(R"({"model_type":"gemma3_text","hidden_size":64,
      "num_hidden_layers":3,"num_attention_heads":4,"intermediate_size":128,
      "sliding_window_pattern":0})")
              .find("sliding_window_pattern") != std::string::npos);
    // other architectures keep requiring their vocabulary
    CHECK(test::config_error(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128})")
              .find("'vocab_size'") != std::string::npos);
  }

  TEST_CASE("serving: both engines, tensor parallel experts, finite forecasts") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    for (const char* id : kNew) {
      for (Engine e : {Engine::fused, Engine::eager}) {
        for (int tp : {1, 2}) {
          CAPTURE(id);
          CAPTURE(engine_name(e));
          CAPTURE(tp);
          ServingRequest r;
          r.prompt = 512;
          r.output = 64;
          r.batch = 4;
          r.tp = tp;
          r.engine = e;
          const ServingForecast f = forecast_serving(h100, find_model(id), r);
          CHECK(std::isfinite(f.prefill_ms));
          CHECK(f.prefill_ms > 0);
          CHECK(f.decode_ms_per_token > 0);
          CHECK(f.tokens_per_s > 0);
          CHECK(f.memory.weights_gb > 0);
        }
      }
    }
    // Mixtral's 46.7B BF16 weights are resident: 93 GB, more than one H100 holds
    ServingRequest r;
    r.prompt = 512;
    r.output = 64;
    const ServingForecast one = forecast_serving(h100, find_model("mixtral-8x7b"), r);
    CHECK(one.memory.weights_gb == doctest::Approx(93.4).epsilon(0.01));
    CHECK_FALSE(one.memory.fits);
    r.tp = 2;
    const ServingForecast two = forecast_serving(h100, find_model("mixtral-8x7b"), r);
    CHECK(two.memory.fits);
    CHECK(two.memory.weights_gb == doctest::Approx(one.memory.weights_gb / 2));
    // experts' inner width split over the GPUs
    const ModelConfig mx = find_model("mixtral-8x7b");
    // (8 decoding sequences reach 8 x (1 - (6/8)^8) = 7.20 -> 7 of the 8 experts)
    const OpGraph g2 = build_engine_graph(mx, make_workload(Mode::decode, 8, 1, 64), Engine::fused);
    CHECK(test::count_ops(g2, "experts gate_up") == 7 * 32);
  }

  TEST_CASE("Gemma 2's KV cache: sliding layers keep at most the window") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const ModelConfig g2 = find_model("gemma2-9b");
    // 2 x 42 layers x 8 kv heads x 256 x 2 bytes within the window
    CHECK(kv_cache_bytes_per_token(g2, DataType::bf16) == 2.0 * 42 * 8 * 256 * 2);
    ServingRequest r;
    r.prompt = 2000;
    r.output = 48;  // 2048 tokens: inside the window, every layer caches every token
    const double inside = forecast_serving(h100, g2, r).memory.kv_cache_gb;
    CHECK(inside == doctest::Approx(2048 * 2.0 * 42 * 8 * 256 * 2 / 1e9));
    r.prompt = 8000;
    r.output = 192;  // 8192 tokens: the 21 sliding layers keep 4096
    const double beyond = forecast_serving(h100, g2, r).memory.kv_cache_gb;
    CHECK(beyond == doctest::Approx((8192.0 * 21 + 4096.0 * 21) * 2 * 8 * 256 * 2 / 1e9));
  }

  TEST_CASE("unsupported fields are errors that name them") {
    const std::string llama = R"("architectures":["LlamaForCausalLM"],"hidden_size":64,
      "num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"vocab_size":100)";
    CHECK(test::config_error("{" + llama + R"(,"quantization_config":{"quant_method":"gptq"}})")
              .find("'quantization_config'") != std::string::npos);
    const std::string rope =
        test::config_error("{" + llama + R"(,"rope_scaling":{"type":"fancy"}})");
    CHECK(rope.find("'rope_scaling'") != std::string::npos);
    CHECK(rope.find("yarn") != std::string::npos);
    CHECK(test::config_error("{" + llama + R"(,"rope_scaling":{"rope_type":"llama3","factor":8}})")
              .empty());
    const std::string gemma = R"("model_type":"gemma","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100)";
    const std::string act = test::config_error("{" + gemma + R"(,"hidden_activation":"mish"})");
    CHECK(act.find("'hidden_activation'") != std::string::npos);
    CHECK(act.find("silu") != std::string::npos);
    const std::string moe = R"("model_type":"mixtral","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100)";
    CHECK(test::config_error("{" + moe + "}").find("'num_local_experts'") != std::string::npos);
    CHECK(test::config_error("{" + moe + R"(,"num_local_experts":100000})")
              .find("'num_local_experts'") != std::string::npos);
    CHECK(test::config_error("{" + moe + R"(,"num_local_experts":2,"num_experts_per_tok":3})")
              .find("'num_experts_per_tok'") != std::string::npos);
    // Switch's experts are bounded as top-k ones are (the fuzzer's 49,054 took a second to build)
    const std::string sw = R"("model_type":"switch_transformers","d_model":64,"num_layers":2,
      "num_heads":4,"d_ff":128,"d_kv":16,"vocab_size":100,"expert_capacity":8)";
    CHECK(test::config_error("{" + sw + R"(,"num_experts":4})").empty());
    const std::string many = test::config_error("{" + sw + R"(,"num_experts":49054})");
    CHECK(many.find("'num_experts'") != std::string::npos);
    CHECK(many.find("4096") != std::string::npos);
    const std::string qwen = R"("model_type":"qwen2_moe","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"num_experts":4)";
    CHECK(test::config_error("{" + qwen + "}").find("'moe_intermediate_size'") !=
          std::string::npos);
    CHECK(
        test::config_error("{" + qwen + R"(,"moe_intermediate_size":32,"use_sliding_window":true})")
            .find("'use_sliding_window'") != std::string::npos);
    CHECK(test::config_error("{" + qwen + R"(,"moe_intermediate_size":32,"mlp_only_layers":[-1]})")
              .find("'mlp_only_layers'") != std::string::npos);
  }

  TEST_CASE("Qwen3: Qwen2's layer without biases, q and k RMS-normed per head; published sizes") {
    // Qwen3-8B model card (https://huggingface.co/Qwen/Qwen3-8B): 8.2B parameters, 6.95B
    // non-embedding (the untied embedding and head are 2 x 151936 x 4096).
    const ModelConfig q3 = find_model("Qwen/Qwen3-8B");
    CHECK(q3.architecture == Architecture::qwen3);
    CHECK_FALSE(q3.attention_bias);
    CHECK(q3.head_dim == 128);
    CHECK(q3.params() / 1e9 == doctest::Approx(8.2).epsilon(0.005));
    CHECK((q3.params() - 2.0 * 151936 * 4096) / 1e9 == doctest::Approx(6.95).epsilon(0.005));
    CHECK(graph_params(q3) / 1e9 == doctest::Approx(8.2).epsilon(0.005));
    // every layer norms q over 32 heads and k over 8, per token (RMSNorm: 6 forward kernels)
    const OpGraph g = build_op_graph(q3, make_workload(Mode::inference, 2, 16));
    CHECK(test::count_ops(g, "q_norm") == 36 * 6);
    CHECK(test::count_ops(g, "k_norm") == 36 * 6);
    CHECK(test::count_ops(
              build_op_graph(find_model("qwen2-7b"), make_workload(Mode::inference, 2, 16)),
              "q_norm") == 0);
    for (const auto& s : g.sections)
      for (const auto& o : s.ops)
        if (o.name == "q_norm" && o.kernel.op == Op::powu) CHECK(o.kernel.dims[0] == 2 * 16 * 32);
    const OpGraph fused =
        build_engine_graph(q3, make_workload(Mode::decode, 4, 1, 100), Engine::fused);
    CHECK(test::count_ops(fused, "q_norm") == 36);
    CHECK(test::count_ops(fused, "k_norm") == 36);
  }

  TEST_CASE("GPT-J: attention and MLP in parallel on one LayerNorm, rotary on 64 features") {
    const ModelConfig j = find_model("EleutherAI/gpt-j-6B");
    CHECK(j.architecture == Architecture::gptj);
    CHECK(j.head_dim == 256);
    CHECK(j.rotary_dim == 64);
    CHECK(j.intermediate_size == 4 * 4096);  // n_inner null
    CHECK(j.max_positions == 0);             // rotary: no position table
    CHECK_FALSE(j.attention_bias);
    CHECK(j.mlp_bias);
    // eager: one LayerNorm a block, rotary over the first 64 features of each head, the rest
    // concatenated back; the second residual add after the MLP
    const OpGraph g = build_op_graph(j, make_workload(Mode::inference, 2, 16));
    CHECK(test::count_ops(g, "ln_1") == 28);
    CHECK(test::count_ops(g, "ln_2") == 0);
    CHECK(test::count_ops(g, "rotary cat (q)") == 28);
    for (const auto& s : g.sections)
      for (const auto& o : s.ops) {
        if (o.name == "rotary (q)" && o.kernel.op == Op::add) CHECK(o.kernel.dims[1] == 64);
        if (o.name == "fc_in") CHECK(o.kernel.dims[3] == 16384);
      }
    // the fused engine: one add + norm a layer (two for Llama) and one add of the two outputs
    const OpGraph fused =
        build_engine_graph(j, make_workload(Mode::decode, 4, 1, 100), Engine::fused);
    CHECK(test::count_ops(fused, "add + norm") == 28 + 1);
    CHECK(test::count_ops(fused, "attention + mlp") == 28);
    const OpGraph llama = build_engine_graph(find_model("llama2-7b"),
                                             make_workload(Mode::decode, 4, 1, 100), Engine::fused);
    CHECK(test::count_ops(llama, "add + norm") == 2 * 32 + 1);
    CHECK(test::count_ops(llama, "attention + mlp") == 0);
    for (const auto& s : fused.sections)
      for (const auto& o : s.ops)
        if (o.name == "rotary") CHECK(o.kernel.dims[1] == 2 * 16 * 64);
    // Megatron-Core has no parallel layer: an error naming the architecture
    try {
      (void)detail::megatron_shape(j);
      FAIL("GPT-J built on the megatron engine");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("gptj") != std::string::npos);
    }
    // a rotary_dim wider than the head is an error naming the field and the range
    const std::string wide = R"({"model_type":"gptj","n_embd":64,"n_layer":2,"n_head":4,
      "vocab_size":100,"rotary_dim":32})";
    const std::string err = test::config_error(wide);
    CHECK(err.find("'rotary_dim'") != std::string::npos);
    CHECK(err.find("2..16") != std::string::npos);
  }

  TEST_CASE(
      "Falcon: parallel attention and MLP on one norm (7B) or two (180B), fused qkv, MQA/GQA") {
    const ModelConfig f7 = find_model("tiiuae/falcon-7b");
    CHECK(f7.architecture == Architecture::falcon);
    CHECK(f7.num_kv_heads == 1);  // multi_query
    CHECK(f7.head_dim == 64);
    CHECK(f7.parallel_norms == 1);
    CHECK(f7.intermediate_size == 4 * 4544);
    CHECK(f7.tie_word_embeddings);
    CHECK_FALSE(f7.mlp_bias);
    const ModelConfig f180 = find_model("tiiuae/falcon-180B");
    CHECK(f180.num_kv_heads == 8);  // the new decoder architecture's num_kv_heads
    CHECK(f180.parallel_norms == 2);
    // 80 layers of 14848-wide q and o, 2 x 8 x 64 k/v, a 4x MLP; the head tied: 178.55B
    CHECK(f180.params() / 1e9 == doctest::Approx(178.55).epsilon(0.001));
    CHECK(graph_params(f180) / 1e9 == doctest::Approx(178.55).epsilon(0.005));
    const OpGraph g7 = build_op_graph(f7, make_workload(Mode::inference, 2, 16));
    CHECK(test::count_ops(g7, "ln_attn") == 0);
    const OpGraph g = build_op_graph(f180, make_workload(Mode::inference, 2, 16));
    CHECK(test::count_ops(g, "ln_attn") == 80);
    CHECK(test::count_ops(g, "ln_mlp") == 80);
    for (const auto& s : g.sections)
      for (const auto& o : s.ops)
        if (o.name == "query_key_value") CHECK(o.kernel.dims[3] == 14848 + 2 * 8 * 64);
    // the fused engine: a second norm for the MLP only where the config has two
    auto fused = [](const ModelConfig& m) {
      return build_engine_graph(m, make_workload(Mode::decode, 4, 1, 100), Engine::fused);
    };
    CHECK(test::count_ops(fused(f180), "add + norm") == 80 + 1);
    CHECK(test::count_ops(fused(f180), "norm (mlp)") == 80);
    CHECK(test::count_ops(fused(f180), "attention + mlp") == 80);
    CHECK(test::count_ops(fused(f7), "norm (mlp)") == 0);
    CHECK(test::count_ops(fused(f7), "add + norm") == 32 + 1);
    // ALiBi and a sequential Falcon layer are errors naming the field
    const std::string base = R"("model_type":"falcon","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"vocab_size":100)";
    CHECK(test::config_error("{" + base + R"(,"alibi":true})").find("'alibi'") !=
          std::string::npos);
    CHECK(test::config_error("{" + base + R"(,"parallel_attn":false})").find("'parallel_attn'") !=
          std::string::npos);
    CHECK(parse_model_config("{" + base + R"(,"new_decoder_architecture":true,"num_kv_heads":2})",
                             "x")
              .num_kv_heads == 2);
    // the new decoder architecture is parallel whatever parallel_attn says (Hugging Face reads
    // the switch only in the old one)
    CHECK(parse_model_config(
              "{" + base + R"(,"new_decoder_architecture":true,"parallel_attn":false})", "x")
              .num_kv_heads == 4);
  }

  TEST_CASE(
      "Qwen3-MoE: Qwen3's attention with 128 top-8 experts of moe_intermediate_size, none shared") {
    const ModelConfig q = find_model("Qwen/Qwen3-30B-A3B");
    CHECK(q.architecture == Architecture::qwen3_moe);
    CHECK(q.num_experts == 128);
    CHECK(q.experts_per_token == 8);
    CHECK(q.expert_intermediate_size == 768);
    CHECK(q.shared_expert_intermediate_size == 0);
    CHECK(q.norm_topk_prob);
    CHECK(is_moe_layer(q, 0));
    // active parameters: attention, the router and 8 of 128 experts a layer, embeddings and head
    const double h = 2048, attn = h * 32 * 128 * 2 + 2 * h * 4 * 128;
    const double active = 48 * (attn + h * 128 + 8 * 3 * h * 768) + 2 * 151936 * h;
    CHECK(active / 1e9 == doctest::Approx(3.3).epsilon(0.02));
    const OpGraph g = build_op_graph(q, make_workload(Mode::inference, 1, 64));
    CHECK(test::count_ops(g, "q_norm") == 48 * 6);
    CHECK(test::count_ops(g, "shared gate_proj") == 0);
    const OpGraph fused =
        build_engine_graph(q, make_workload(Mode::decode, 4, 1, 100), Engine::fused);
    CHECK(test::count_ops(fused, "q_norm") == 48);
    CHECK(test::count_ops(fused, "router") == 48);
    // norm_topk_prob as the config says (Qwen3MoeConfig's default false), unlike Mixtral's
    const std::string base = R"("model_type":"qwen3_moe","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"num_experts":4,
      "moe_intermediate_size":32)";
    CHECK_FALSE(parse_model_config("{" + base + "}", "x").norm_topk_prob);
    CHECK(test::config_error(R"({"model_type":"qwen3_moe","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"num_experts":4})")
              .find("'moe_intermediate_size'") != std::string::npos);
  }

  TEST_CASE("qwen2_moe's dense layers follow mlp_only_layers and decoder_sparse_step") {
    const std::string qwen = R"({"model_type":"qwen2_moe","hidden_size":64,"num_hidden_layers":4,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"num_experts":4,
      "moe_intermediate_size":32,"decoder_sparse_step":2,"mlp_only_layers":[3]})";
    const ModelConfig m = parse_model_config(qwen, "x");
    CHECK_FALSE(is_moe_layer(m, 0));
    CHECK(is_moe_layer(m, 1));
    CHECK_FALSE(is_moe_layer(m, 2));
    CHECK_FALSE(is_moe_layer(m, 3));  // listed
    const OpGraph g = build_op_graph(m, make_workload(Mode::training, 1, 8));
    CHECK(g.sections[1].name == "decoder layer (experts)");
    CHECK(g.sections[1].count == 1);
    CHECK(g.sections[2].count == 3);
    CHECK(graph_params(m) == doctest::Approx(m.params()).epsilon(0.01));
  }
}
