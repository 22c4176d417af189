// Llama 4 (llama4_text): the architecture row, the released Scout and Maverick configs (flat and
// as a vision-language config's text_config), a bare text config with Llama4TextConfig's
// defaults, refused fields, the parameter counts against Meta's totals, the eager graph's layer
// kinds and ops, chunked attention's keys and cache, and the optimised engine and serving.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "model/architectures.hpp"
#include "support/helpers.hpp"
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

// A bare llama4_text config of 8 small layers; `extra` adds or overrides fields.
std::string bare(const std::string& extra = "") {
  return R"({"model_type":"llama4_text","hidden_size":64,"num_hidden_layers":8,
    "num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":32,
    "intermediate_size_mlp":128,"vocab_size":100,"num_local_experts":4)" +
         extra + "}";
}

// The op named `name` in section `section` of `g` (its first).
const GraphOp& op_in(const OpGraph& g, const std::string& section, const std::string& name) {
  for (const GraphOp& o : test::section_named(g, section).ops)
    if (o.name == name) return o;
  throw std::out_of_range("no op '" + name + "' in '" + section + "'");
}

std::int64_t ops_in(const OpGraph& g, const std::string& section, const std::string& name) {
  std::int64_t n = 0;
  for (const GraphOp& o : test::section_named(g, section).ops) n += o.name == name ? 1 : 0;
  return n;
}

// The released vision tower and projector (vision_config: 34 layers of 1,408 features, 16 heads,
// MLP 5,632, 14 x 14 patches of 336 x 336 images, a pixel-shuffle adapter 5,632 -> 4,096 -> 4,096,
// the projector 4,096 -> 5,120) as transformers' Llama4VisionModel and
// Llama4MultiModalProjector hold them; not forecast, counted here to compare Meta's totals.
double vision_tower_params() {
  const double h = 1408, f = 5632, patches = (336.0 / 14) * (336.0 / 14) + 1;
  const double layer = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h;  // 2 LayerNorms
  const double embeddings = 3 * 14 * 14 * h + h + patches * h + 4 * h;       // + pre/post norms
  const double adapter = f * 4096 + 4096.0 * 4096, projector = 4096.0 * 5120;
  return embeddings + 34 * layer + adapter + projector;
}

}  // namespace

TEST_SUITE("llama4") {
  TEST_CASE("the row: chunked local and global NoPE attention, experts with a shared one") {
    const ArchitectureTraits& t = traits(Architecture::llama4_text);
    CHECK(t.model_type == "llama4_text");
    CHECK(t.class_prefix == "Llama4");
    CHECK(t.routing == Routing::top_k_shared);
    CHECK_FALSE(t.shared_expert_gate);
    CHECK(t.experts == ExpertForm::llama4);
    CHECK(t.moe_layers == MoeLayers::interleave);
    CHECK(t.sliding == Sliding::chunked);
    CHECK(t.global_nope);
    CHECK(t.complex_rotary);
    CHECK(t.qk_norm_unweighted);
    CHECK_FALSE(t.qk_norm);  // the config's use_qk_norm decides
    CHECK(t.hf.qk_norm_field == "use_qk_norm");
    CHECK(t.hf.mlp_width_field == "intermediate_size_mlp");
    CHECK(t.builder_file == "llama4.cpp");
    // the other rows read their dense MLP's intermediate_size
    for (const ArchitectureTraits& r : architecture_table()) {
      CAPTURE(r.model_type);
      if (r.id != Architecture::llama4_text) CHECK(r.hf.mlp_width_field == "intermediate_size");
    }
  }

  TEST_CASE("the released configs: Scout every layer experts, Maverick every second") {
    const ModelConfig s = find_model("meta-llama/Llama-4-Scout-17B-16E-Instruct");
    CHECK(s.id == "llama4-scout");
    CHECK(find_model("meta-llama/Llama-4-Scout-17B-16E").id == "llama4-scout");
    CHECK(s.architecture == Architecture::llama4_text);
    CHECK(s.num_experts == 16);
    CHECK(s.experts_per_token == 1);
    CHECK(s.expert_intermediate_size == 8192);
    CHECK(s.shared_expert_intermediate_size == 8192);
    CHECK(s.intermediate_size == 16384);  // intermediate_size_mlp: no dense layer in Scout
    CHECK(s.sliding_window == 8192);
    CHECK(s.sliding_window_pattern == 4);
    CHECK(s.config_qk_norm);
    CHECK(s.attn_temperature);  // attn_temperature_tuning: 4
    CHECK_FALSE(s.tie_word_embeddings);
    CHECK(s.num_kv_heads == 8);
    CHECK(s.head_dim == 128);
    const ModelConfig m = find_model("meta-llama/Llama-4-Maverick-17B-128E-Instruct");
    CHECK(m.id == "llama4-maverick");
    CHECK(find_model("meta-llama/Llama-4-Maverick-17B-128E").id == "llama4-maverick");
    CHECK(m.num_experts == 128);
    CHECK(m.experts_per_token == 1);
    CHECK_FALSE(m.config_qk_norm);
    CHECK(m.attn_temperature);  // Llama4TextConfig's default
    for (std::int64_t i = 0; i < 48; ++i) {
      CAPTURE(i);
      CHECK(is_moe_layer(s, i));
      CHECK(is_moe_layer(m, i) == (i % 2 == 1));  // range(step - 1, layers, step)
      CHECK(is_sliding_layer(s, i) == ((i + 1) % 4 != 0));
      CHECK(is_sliding_layer(m, i) == ((i + 1) % 4 != 0));
    }
    CHECK(sliding_layer_count(s) == 36);
    // a Llama4ForConditionalGeneration config is read as its text_config
    const std::string mm = R"({"architectures":["Llama4ForConditionalGeneration"],
      "model_type":"llama4","tie_word_embeddings":false,
      "text_config":{"attention_chunk_size":8192,"attn_temperature_tuning":4,"head_dim":128,
        "hidden_act":"silu","hidden_size":5120,"interleave_moe_layer_step":1,
        "intermediate_size":8192,"intermediate_size_mlp":16384,"max_position_embeddings":10485760,
        "model_type":"llama4_text","num_attention_heads":40,"num_experts_per_tok":1,
        "num_hidden_layers":48,"num_key_value_heads":8,"num_local_experts":16,
        "rope_scaling":{"factor":16.0,"high_freq_factor":1.0,"low_freq_factor":1.0,
          "original_max_position_embeddings":8192,"rope_type":"llama3"},
        "rope_theta":500000.0,"use_qk_norm":true,"vocab_size":202048},
      "vision_config":{"model_type":"llama4_vision_model","hidden_size":1408}})";
    const ModelConfig v = parse_model_config(mm, "config.json");
    CHECK(v.language_model_of == "llama4");
    CHECK(v.architecture == Architecture::llama4_text);
    CHECK(v.params() == s.params());
    CHECK(test::mentions(workload_caveats(v, make_workload(Mode::inference, 1, 8)),
                         "vision encoder"));
  }

  TEST_CASE("a bare text config takes Llama4TextConfig's defaults and rules") {
    const ModelConfig m = parse_model_config(bare(), "config.json");
    CHECK(m.architecture == Architecture::llama4_text);
    CHECK(m.experts_per_token == 1);
    CHECK(m.sliding_window == 8192);
    CHECK(m.sliding_window_pattern == 4);
    CHECK(m.config_qk_norm);
    CHECK(m.attn_temperature);
    CHECK(m.intermediate_size == 128);
    CHECK(m.expert_intermediate_size == 32);
    for (std::int64_t i = 0; i < 8; ++i) CHECK(is_moe_layer(m, i));
    // by class name alone
    CHECK(parse_model_config(R"({"architectures":["Llama4ForCausalLM"],"hidden_size":64,
      "num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":32,"vocab_size":100,
      "num_local_experts":4})",
                             "config.json")
              .architecture == Architecture::llama4_text);
    // the dense width's default (16384) where intermediate_size_mlp is left out
    CHECK(parse_model_config(R"({"model_type":"llama4_text","hidden_size":64,"num_hidden_layers":2,
      "num_attention_heads":4,"intermediate_size":32,"vocab_size":100,"num_local_experts":4})",
                             "config.json")
              .intermediate_size == 16384);
    // the interleave step, a moe_layers list (which wins), the NoPE interval, switches off
    const ModelConfig step = parse_model_config(bare(R"(,"interleave_moe_layer_step":3)"), "x");
    const ModelConfig listed = parse_model_config(
        bare(R"(,"interleave_moe_layer_step":3,"moe_layers":[0,5],"no_rope_layer_interval":2,
        "use_qk_norm":false,"attn_temperature_tuning":0,"attention_chunk_size":16)"),
        "x");
    for (std::int64_t i = 0; i < 8; ++i) {
      CAPTURE(i);
      CHECK(is_moe_layer(step, i) == (i == 2 || i == 5));
      CHECK(is_moe_layer(listed, i) == (i == 0 || i == 5));
      CHECK(is_sliding_layer(listed, i) == (i % 2 == 0));
    }
    CHECK_FALSE(listed.config_qk_norm);
    CHECK_FALSE(listed.attn_temperature);
    CHECK(listed.sliding_window == 16);
    // no_rope_layers sets the pattern (its first 0), layer_types that agree are accepted
    const ModelConfig nope = parse_model_config(
        bare(R"(,"no_rope_layers":[1,1,0,1,1,0,1,1,0],"layer_types":["chunked_attention",
        "chunked_attention","full_attention","chunked_attention","chunked_attention",
        "full_attention","chunked_attention","chunked_attention"])"),
        "x");
    CHECK(nope.sliding_window_pattern == 3);
    // no NoPE layer listed: every layer chunked
    const ModelConfig all = parse_model_config(bare(R"(,"no_rope_layers":[1,1,1,1,1,1,1,1])"), "x");
    CHECK(sliding_layer_count(all) == 8);
  }

  TEST_CASE("refused fields name the field and what is allowed") {
    const auto err = [](const std::string& extra) { return test::config_error(bare(extra)); };
    const std::string null_chunk = err(R"(,"attention_chunk_size":null)");
    CHECK(null_chunk.find("'attention_chunk_size' is null") != std::string::npos);
    CHECK(null_chunk.find("allowed: a chunk size") != std::string::npos);
    CHECK(err(R"(,"attention_chunk_size":0)").find("'attention_chunk_size'") != std::string::npos);
    const std::string off = err(R"(,"no_rope_layers":[1,0,1,1,1,1,1,1])");
    CHECK(off.find("'no_rope_layers' entry 3") != std::string::npos);
    CHECK(off.find("no_rope_layer_interval") != std::string::npos);
    const std::string two = err(R"(,"no_rope_layers":[1,1,2,1,1,1,1,1])");
    CHECK(two.find("entry 2 is 2; allowed: 1 (rotary) or 0 (NoPE)") != std::string::npos);
    CHECK(err(R"(,"no_rope_layers":[1,1,1])").find("at least every layer (8)") !=
          std::string::npos);
    CHECK(err(R"(,"no_rope_layers":"1110")").find("'no_rope_layers' must be an array") !=
          std::string::npos);
    CHECK(err(R"(,"no_rope_layer_interval":0)").find("'no_rope_layer_interval'") !=
          std::string::npos);
    const std::string types = err(
        R"(,"layer_types":["full_attention","chunked_attention","chunked_attention",
        "full_attention","chunked_attention","chunked_attention","chunked_attention",
        "full_attention"])");
    CHECK(types.find("'layer_types' entry 0") != std::string::npos);
    CHECK(types.find("allowed: an array of \"chunked_attention\"") != std::string::npos);
    const std::string layer = err(R"(,"moe_layers":[1,99])");
    CHECK(layer.find("'moe_layers' holds 99") != std::string::npos);
    CHECK(layer.find("allowed: an array of layer indices, 0 to 7") != std::string::npos);
    CHECK(err(R"(,"moe_layers":3)").find("'moe_layers' must be an array") != std::string::npos);
    CHECK(err(R"(,"interleave_moe_layer_step":0)").find("'interleave_moe_layer_step'") !=
          std::string::npos);
    CHECK(err(R"(,"attn_temperature_tuning":"yes")").find("'attn_temperature_tuning' must be") !=
          std::string::npos);
    CHECK(err(R"(,"num_experts_per_tok":5)").find("'num_experts_per_tok' (5) exceeds") !=
          std::string::npos);
    CHECK(err(R"(,"use_qk_norm":1)").find("'use_qk_norm'") != std::string::npos);
  }

  TEST_CASE("parameters: the released shapes, Meta's totals with the vision tower, 17B active") {
    const ModelConfig s = find_model("llama4-scout"), m = find_model("llama4-maverick");
    // q and o 5,120 x 5,120, k and v 5,120 x 1,024; each expert and the shared one three
    // 5,120 x 8,192 matrices; a dense layer's three 5,120 x 16,384; the 16 or 128 experts' router
    const double H = 5120, attn = 2 * H * H + 2 * H * 1024, expert = 3 * H * 8192,
                 dense = 3 * H * 16384, tables = 2 * 202048 * H;
    const double scout = tables + 48 * (attn + H * 16 + 16 * expert + expert);
    const double maverick =
        tables + 48 * attn + 24 * (H * 128 + 128 * expert + expert) + 24 * dense;
    CHECK(s.params() == doctest::Approx(scout).epsilon(1e-9));
    CHECK(m.params() == doctest::Approx(maverick).epsilon(1e-9));
    // the graph holds the same weights and the norms' (2 a layer and the final one)
    CHECK(graph_params(s) == doctest::Approx(scout + (2 * 48 + 1) * H).epsilon(1e-9));
    CHECK(graph_params(m) == doctest::Approx(maverick + (2 * 48 + 1) * H).epsilon(1e-9));
    for (const Mode mode : {Mode::training, Mode::decode}) {
      CAPTURE(mode_name(mode));
      const Workload w = mode == Mode::training ? make_workload(Mode::training, 1, 64)
                                                : make_workload(Mode::decode, 1, 1, 9);
      CHECK(graph_param_count(build_op_graph(s, w)) == doctest::Approx(graph_params(s)));
    }
    // Meta's model card: 109B and 400B total, the multimodal models (the vision tower, about
    // 0.87B, with the language model), within 0.5 %
    const double vision = vision_tower_params();
    CHECK(vision / 1e9 == doctest::Approx(0.872).epsilon(0.005));
    CHECK((s.params() + vision) / 1e9 == doctest::Approx(109).epsilon(0.005));
    CHECK((m.params() + vision) / 1e9 == doctest::Approx(400).epsilon(0.005));
    CHECK(m.params() / 1e9 == doctest::Approx(400).epsilon(0.005));
    // 17B active: all but the top-1 routed expert of each MoE layer (the card's two figures)
    const double scout_active = s.params() - 48 * 15 * expert;
    const double maverick_active = m.params() - 24 * 127 * expert;
    CHECK(std::round(scout_active / 1e9) == 17);
    CHECK(std::round(maverick_active / 1e9) == 17);
  }

  TEST_CASE("the eager graph: layer kinds, NoPE and chunked attention, every expert") {
    const ModelConfig s = find_model("llama4-scout"), m = find_model("llama4-maverick");
    const OpGraph gs = build_op_graph(s, make_workload(Mode::decode, 1, 1, 10000));
    const OpGraph gm = build_op_graph(m, make_workload(Mode::decode, 1, 1, 10000));
    CHECK(test::section_named(gs, "decoder layer (chunked, experts)").count == 36);
    CHECK(test::section_named(gs, "decoder layer (global, experts)").count == 12);
    for (const auto& sec : gs.sections) CHECK(sec.name.find("dense") == std::string::npos);
    // Maverick: experts on the odd layers, NoPE on every fourth (3, 7, ...: all odd)
    CHECK(test::section_named(gm, "decoder layer (chunked, experts)").count == 12);
    CHECK(test::section_named(gm, "decoder layer (chunked, dense)").count == 24);
    CHECK(test::section_named(gm, "decoder layer (global, experts)").count == 12);
    for (const auto& sec : gm.sections) CHECK(sec.name != "decoder layer (global, dense)");
    // chunked layers: one complex multiply each for q and k, q and k L2-normed (Scout: no
    // weight, so no weight multiply), no temperature; global: no rotary or norm, the temperature
    const std::string chunked = "decoder layer (chunked, experts)",
                      global = "decoder layer (global, experts)";
    CHECK(ops_in(gs, chunked, "rotary (q)") == 1);
    CHECK(ops_in(gs, chunked, "rotary (k)") == 1);
    CHECK(ops_in(gs, chunked, "q_norm") > 0);
    CHECK(ops_in(gs, chunked, "q_norm") + 1 == ops_in(gs, chunked, "input_layernorm"));
    CHECK(ops_in(gs, chunked, "attn temperature") == 0);
    CHECK(ops_in(gs, global, "rotary (q)") == 0);
    CHECK(ops_in(gs, global, "q_norm") == 0);
    CHECK(ops_in(gs, global, "attn temperature") == 8);  // seven over the positions, q's product
    CHECK(ops_in(gm, "decoder layer (chunked, dense)", "q_norm") == 0);  // use_qk_norm false
    // a decode step reads transformers' cache: a chunked layer the last 8192 keys, global all
    CHECK(op_in(gs, chunked, "matmul (q k^T)").kernel.dims[3] == 8192);
    CHECK(op_in(gs, global, "matmul (q k^T)").kernel.dims[3] == 10001);
    // every expert on every token: one bmm over the 16 stacked experts, no loop
    const GraphOp& up = op_in(gs, chunked, "experts gate_up_proj (bmm)");
    CHECK(up.kernel.dims[0] == 16);
    CHECK(up.kernel.dims[3] == 2 * 8192);
    CHECK(op_in(gm, chunked, "experts down_proj (bmm)").kernel.dims[0] == 128);
    CHECK(ops_in(gs, chunked, "shared gate_proj") == 1);
    CHECK(ops_in(gs, chunked, "shared_expert_gate") == 0);
    CHECK(op_in(gm, "decoder layer (chunked, dense)", "gate_proj").kernel.dims[3] == 16384);
    // the chunk and the temperature switch off with their fields
    const ModelConfig bare_off =
        parse_model_config(bare(R"(,"attn_temperature_tuning":false,"use_qk_norm":false)"), "x");
    const OpGraph off = build_op_graph(bare_off, make_workload(Mode::prefill, 1, 8));
    CHECK(test::count_ops(off, "attn temperature") == 0);
    CHECK(test::count_ops(off, "q_norm") == 0);
    CHECK(test::count_ops(off, "rotary (q)") == 6);  // the 6 chunked layers of 8
  }

  TEST_CASE("the optimised engine: a chunked layer's keys, pairs and cache") {
    const ModelConfig s = find_model("llama4-scout");
    const std::int64_t heads = 40, hd = 128, kv = 8 * hd;
    const auto attention = [&](const Workload& w, const std::string& section) {
      return op_in(build_engine_graph(s, w, Engine::fused), section, "fused attention");
    };
    const std::string chunked = "decoder layer (chunked) (experts)",
                      global = "decoder layer (global) (experts)";
    // decode at 10,001 keys: a chunked layer reads the 1,809 since its chunk began (8,192 in)
    const Workload decode = make_workload(Mode::decode, 1, 1, 10000);
    const GraphOp& local = attention(decode, chunked);
    CHECK(local.fused_keys == 1809);
    CHECK(local.fused_flops == doctest::Approx(4.0 * heads * 1809 * hd));
    CHECK(local.fused_bytes ==
          doctest::Approx((2.0 * heads * hd + 2.0 * 1809 * kv) * dtype_bytes(decode.dtype)));
    CHECK(attention(decode, global).fused_keys == 10001);
    // within the first chunk a chunked layer reads every key, as a global one
    CHECK(attention(make_workload(Mode::decode, 1, 1, 5000), chunked).fused_keys == 5001);
    // a 20,000-token prefill: two whole chunks' causal halves and the last 3,616 tokens'
    const Workload prefill = make_workload(Mode::prefill, 1, 20000);
    const double pairs = 2 * 8192.0 * 8192 / 2 + 3616.0 * 3616 / 2;
    CHECK(attention(prefill, chunked).fused_flops == doctest::Approx(4 * heads * pairs * hd));
    CHECK(attention(prefill, global).fused_flops ==
          doctest::Approx(4 * heads * 20000.0 * 20000 / 2 * hd));
    // rotary and the q/k norms on the chunked layers only, the temperature on the global ones
    const OpGraph g = build_engine_graph(s, decode, Engine::fused);
    CHECK(ops_in(g, chunked, "rotary") == 1);
    CHECK(ops_in(g, chunked, "q_norm") == 1);
    CHECK(ops_in(g, chunked, "attn temperature") == 0);
    CHECK(ops_in(g, global, "rotary") == 0);
    CHECK(ops_in(g, global, "q_norm") == 0);
    CHECK(ops_in(g, global, "attn temperature") == 1);
    CHECK(ops_in(g, global, "shared_expert_gate") == 0);
    // serving caches a chunked layer's last chunk, a global layer every token (BF16 K and V,
    // 8 heads of 128)
    ServingRequest r;
    r.prompt = 16000;
    r.output = 192;
    r.tp = 8;
    const double per_layer_token = 2.0 * 8 * 128 * 2 / 8;
    CHECK(forecast_serving(find_gpu("h100-sxm"), s, r).memory.kv_cache_gb ==
          doctest::Approx((16192.0 * 12 + 8192.0 * 36) * per_layer_token / 1e9));
  }

  TEST_CASE("forecasts and serving: every mode and engine, finite") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    for (const char* id : {"llama4-scout", "llama4-maverick"}) {
      const ModelConfig m = find_model(id);
      for (Mode mode : {Mode::training, Mode::inference, Mode::prefill, Mode::decode}) {
        CAPTURE(id);
        CAPTURE(mode_name(mode));
        Workload w = make_workload(mode, 1, mode == Mode::training ? 128 : 256);
        w.dtype = DataType::bf16;
        const ModelForecast f = forecast_model(h100, m, w, Predictor::tilecast);
        CHECK(std::isfinite(f.latency_ms));
        CHECK(f.latency_ms > 0);
        CHECK(test::mentions(workload_caveats(m, w), "Chunked local attention: 36 of the 48"));
      }
      ServingRequest r;
      r.prompt = 1000;
      r.output = 64;
      r.tp = 8;
      r.dtype = DataType::bf16;
      for (Engine e : {Engine::fused, Engine::eager}) {
        CAPTURE(engine_name(e));
        r.engine = e;
        const ServingForecast f = forecast_serving(h100, m, r);
        CHECK(std::isfinite(f.total_ms));
        CHECK(f.total_ms > 0);
      }
    }
  }
}
