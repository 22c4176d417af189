// DeepSeek-V3's multi-head latent attention and experts (docs/models.md): the config's shapes,
// the parameter count against the published total, the eager graph's projections, the optimised
// engine's prefill (the latent up-projected) and decode (the up-projections absorbed), the cache
// of one latent per token on every tensor-parallel GPU, the load simulator, and the engines and
// fields it refuses.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "graph/engines/megatron_layer.hpp"
#include "support/helpers.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"
#include "tilecast/serving.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;

namespace {

// The fused attention op of a graph's first layer section (its bytes say what it reads).
const GraphOp& fused_attention(const OpGraph& g) {
  for (const auto& s : g.sections)
    for (const auto& o : s.ops)
      if (o.name == "fused attention") return o;
  throw Error("no fused attention op");
}

}  // namespace

TEST_SUITE("latent_attention") {
  TEST_CASE("DeepSeek-R1's config: latent attention, three dense layers, one shared expert") {
    const ModelConfig m = find_model("deepseek-ai/DeepSeek-R1");
    CHECK(m.architecture == Architecture::deepseek_v3);
    CHECK(m.q_lora_rank == 1536);
    CHECK(m.kv_lora_rank == 512);
    CHECK(m.qk_rope_head_dim == 64);
    CHECK(m.head_dim == 128 + 64);
    CHECK(m.v_head_dim == 128);
    CHECK(m.num_experts == 256);
    CHECK(m.experts_per_token == 8);
    CHECK(m.shared_expert_intermediate_size == 2048);
    for (std::int64_t i : {0, 1, 2}) CHECK_FALSE(is_moe_layer(m, i));
    for (std::int64_t i : {3, 30, 60}) CHECK(is_moe_layer(m, i));
    // 671B in all (DeepSeek-V3 technical report, arXiv:2412.19437: 671B total parameters, 37B
    // activated for each token; the Hugging Face checkpoint's 685B adds the 14B
    // multi-token-prediction module, not part of the forward pass)
    CHECK(m.params() / 1e9 == doctest::Approx(671).epsilon(0.002));
    const OpGraph g = build_op_graph(m, make_workload(Mode::inference, 1, 8));
    CHECK(graph_param_count(g) == doctest::Approx(m.params()).epsilon(0.005));
    // eager: transformers' projections, no shared-expert gate (DeepSeek's shared expert is ungated)
    for (const char* op : {"q_a_proj", "q_a_layernorm", "q_b_proj", "kv_a_proj_with_mqa",
                           "kv_a_layernorm", "kv_b_proj", "shared gate_proj"})
      CHECK_MESSAGE(test::count_ops(g, op) > 0, op);
    CHECK(test::count_ops(g, "shared_expert_gate") == 0);
    CHECK(test::count_ops(g, "q_proj") == 0);
  }

  TEST_CASE("Kimi K2: model_type kimi_k2 read by its DeepseekV3ForCausalLM class") {
    const ModelConfig m = find_model("moonshotai/Kimi-K2-Instruct-0905");
    CHECK(m.id == "kimi-k2");
    CHECK(m.architecture == Architecture::deepseek_v3);
    CHECK(m.model_type == "kimi_k2");
    CHECK(m.num_heads == 64);
    CHECK(m.kv_lora_rank == 512);
    CHECK(m.num_experts == 384);
    CHECK(m.experts_per_token == 8);
    CHECK_FALSE(is_moe_layer(m, 0));
    for (std::int64_t i : {1, 60}) CHECK(is_moe_layer(m, i));
    // 60 layers of 384 experts and one shared (each 3 x 7168 x 2048), 61 latent-attention layers,
    // one dense MLP, untied 163,840-token embeddings: 1,026.4B; Kimi states 1.04 trillion in all
    // and 32.6B activated (arXiv:2507.20534)
    CHECK(m.params() / 1e9 == doctest::Approx(1026.4).epsilon(0.001));
    const OpGraph g = build_op_graph(m, make_workload(Mode::inference, 1, 8));
    CHECK(graph_param_count(g) == doctest::Approx(m.params()).epsilon(0.005));
  }

  TEST_CASE("the optimised engine: prefill up-projects the latent, decode absorbs it") {
    const ModelConfig m = find_model("deepseek-v3");
    const OpGraph prefill =
        build_engine_graph(m, make_workload(Mode::prefill, 2, 512), Engine::fused);
    CHECK(test::count_ops(prefill, "kv_b_proj") == 61);
    CHECK(test::count_ops(prefill, "q absorb (W_UK)") == 0);
    const OpGraph decode =
        build_engine_graph(m, make_workload(Mode::decode, 4, 1, 4096), Engine::fused);
    CHECK(test::count_ops(decode, "kv_b_proj") == 0);
    CHECK(test::count_ops(decode, "q absorb (W_UK)") == 61);
    CHECK(test::count_ops(decode, "v up (W_UV)") == 61);
    CHECK(test::count_ops(decode, "fused_qkv_a_proj") == 61);
    // a decode reads each sequence's latent cache once for all 128 heads: 4 x 4097 keys (the
    // cached and the new) x 576 features, beside each head's query and output latents
    // (4 x 128 x (576 + 512)); FP32, the workload's type here
    const double bytes = 4, keys = 4097;
    const GraphOp& a = fused_attention(decode);
    CHECK(a.fused_bytes == doctest::Approx((4.0 * keys * 576 + 4.0 * 128 * (576 + 512)) * bytes));
    CHECK(a.fused_flops == doctest::Approx(2.0 * 4 * 128 * keys * (576 + 512)));
  }

  TEST_CASE("the cache holds one latent per token, on every tensor-parallel GPU") {
    const ModelConfig m = find_model("deepseek-v3");
    // 61 layers x (512 + 64) features x 2 bytes: 70,272 bytes, not 2 x 61 x 128 heads x 192
    CHECK(kv_cache_bytes_per_token(m, DataType::bf16) == 61.0 * 576 * 2);
    CHECK(kv_cache_bytes_per_token(m, DataType::bf16, 8) == 61.0 * 576 * 2);
    ServingRequest r;
    r.prompt = 1024;
    r.output = 256;
    r.batch = 16;
    r.tp = 8;
    r.dtype = DataType::fp8;
    const ServingForecast f = forecast_serving(find_gpu("h200"), m, r);
    CHECK(f.kv_cache_bytes_per_token == 61.0 * 576 * 2);
    CHECK(f.memory.kv_cache_gb == doctest::Approx(16 * 1280 * 61.0 * 576 * 2 / 1e9));
    CHECK(f.memory.fits);
    CHECK(std::isfinite(f.decode_ms_per_token));
    CHECK(f.decode_ms_per_token > 0);
  }

  TEST_CASE("served under load: finite percentiles; a longer context costs more per token") {
    const ModelConfig m = find_model("deepseek-r1");
    LoadRequest r;
    r.serving.prompt = 1000;
    r.serving.output = 200;
    r.serving.tp = 8;
    r.serving.dtype = DataType::fp8;
    r.arrivals = Arrivals::closed_loop;
    r.concurrency = 32;
    r.requests = 64;
    const LoadForecast f = simulate_serving(find_gpu("h200"), m, r);
    CHECK(std::isfinite(f.ttft_ms.p99));
    CHECK(f.tpot_ms.p50 > 0);
    CHECK(f.output_tokens_per_s > 0);
    r.serving.prompt = 8000;
    const LoadForecast longer = simulate_serving(find_gpu("h200"), m, r);
    CHECK(longer.tpot_ms.p50 > f.tpot_ms.p50);
  }

  TEST_CASE("what is refused is said") {
    const ModelConfig m = find_model("deepseek-v3");
    bool refused = false;
    try {
      (void)detail::megatron_shape(m);
    } catch (const Error& e) {
      refused = std::string(e.what()).find("latent attention") != std::string::npos;
    }
    CHECK(refused);
    const std::string base = R"("model_type":"deepseek_v3","hidden_size":64,"num_hidden_layers":4,
      "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"n_routed_experts":8,
      "moe_intermediate_size":32,"kv_lora_rank":16,"qk_nope_head_dim":8,"qk_rope_head_dim":4,
      "v_head_dim":8)";
    CHECK(test::config_error("{" + base + "}").empty());
    CHECK(test::config_error("{" + base + R"(,"moe_layer_freq":2})").find("'moe_layer_freq'") !=
          std::string::npos);
    CHECK(test::config_error("{" + base + R"(,"first_k_dense_replace":9})")
              .find("'first_k_dense_replace'") != std::string::npos);
    const std::string no_rank = test::config_error(
        R"({"model_type":"deepseek_v3","hidden_size":64,"num_hidden_layers":4,
        "num_attention_heads":4,"intermediate_size":128,"vocab_size":100,"n_routed_experts":8,
        "moe_intermediate_size":32,"qk_nope_head_dim":8,"qk_rope_head_dim":4,"v_head_dim":8})");
    CHECK(no_rank.find("'kv_lora_rank'") != std::string::npos);
    CHECK(test::mentions(workload_caveats(m, make_workload(Mode::decode, 1, 1, 9)),
                         "Multi-head latent attention"));
  }
}
