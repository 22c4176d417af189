// The vidur compute-layout reader: each operator becomes the kernel it runs at the row's
// shapes (FP16), LayerNorm/GELU for a model without a gated MLP, missing operators left out,
// malformed rows named by file and line; the report keeps the layout's operator order.
#include "tilecast/vidur_ops.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

// Operator medians in the layout's column order, then the model and shape columns.
std::string header() {
  std::string h;
  for (const std::string& op : vidur_op_names())
    h += "time_stats." + op + ".min,time_stats." + op + ".median,";
  return h +
         "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,"
         "num_tensor_parallel_workers\n";
}

std::string row(const std::string& medians_csv_pairs, const std::string& model) {
  return medians_csv_pairs + "," + model + "\n";
}

// Ten (min, median) pairs with the given median for every operator; `skip` empties one.
std::string times(double ms, const std::string& skip = "") {
  std::string s;
  for (const std::string& op : vidur_op_names()) {
    if (!s.empty()) s += ",";
    s += op == skip ? "," : "0.001," + std::to_string(ms);
  }
  return s;
}

std::map<std::string, Kernel> by_op(const std::vector<VidurOpRow>& rows) {
  std::map<std::string, Kernel> out;
  for (const VidurOpRow& r : rows) out[r.op] = r.kernel;
  return out;
}

}  // namespace

TEST_SUITE("vidur_ops") {
  TEST_CASE("a gated GQA model at TP 2: the kernels and shapes of each operator") {
    // Llama-3-8B-like: 32 heads of 128, 8 kv heads, f = 14336, 64 tokens, TP 2.
    const auto rows = parse_vidur_mlp_csv(
        header() + row(times(0.05), "32,8,4096,14336,128256,True,64,2"), "m/mlp.csv");
    REQUIRE(rows.size() == 10);
    CHECK(rows[0].origin == "m/mlp.csv:2");
    CHECK(rows[0].tokens == 64);
    CHECK(rows[0].tp == 2);
    CHECK(rows[0].measured_ms == doctest::Approx(0.05));
    const auto k = by_op(rows);
    using D = std::array<std::int64_t, 4>;
    CHECK(op_name(k.at("emb").op) == "embedding");
    CHECK(k.at("emb").dims == D{64, 4096, 1, 1});
    CHECK(op_name(k.at("input_layernorm").op) == "rmsnorm");
    CHECK(op_name(k.at("post_attention_layernorm").op) == "rmsnorm");
    CHECK(k.at("attn_pre_proj").op == Op::linear);
    CHECK(k.at("attn_pre_proj").dims == D{1, 64, 4096, (32 + 16) * 128 / 2});
    CHECK(op_name(k.at("attn_rope").op) == "rotary");
    CHECK(k.at("attn_rope").dims == D{64, (32 + 8) * 128 / 2, 1, 1});
    CHECK(k.at("attn_post_proj").dims == D{1, 64, 2048, 4096});
    CHECK(k.at("mlp_up_proj").dims == D{1, 64, 4096, 14336});
    CHECK(op_name(k.at("mlp_act").op) == "silu_mul");
    CHECK(k.at("mlp_act").dims == D{64, 7168, 1, 1});
    CHECK(k.at("mlp_down_proj").dims == D{1, 64, 7168, 4096});
    CHECK(k.at("add").op == Op::add);
    CHECK(k.at("add").dims == D{64, 4096, 1, 1});
    for (const VidurOpRow& r : rows) CHECK(r.kernel.dtype == DataType::fp16);
  }

  TEST_CASE("phi-2 (no gated MLP): LayerNorm, GELU, f / p up projection, no second norm") {
    const auto rows = parse_vidur_mlp_csv(
        header() + row(times(0.02, "post_attention_layernorm"), "32,32,2560,10240,51200,False,8,1"),
        "phi/mlp.csv", DataType::bf16);
    REQUIRE(rows.size() == 9);
    const auto k = by_op(rows);
    CHECK(k.count("post_attention_layernorm") == 0);
    CHECK(k.at("input_layernorm").op == Op::ln);
    CHECK(k.at("mlp_act").op == Op::gelu);
    CHECK(k.at("mlp_up_proj").dims[3] == 10240);
    CHECK(k.at("add").dtype == DataType::bf16);
  }

  TEST_CASE("malformed rows are named by file, line and field") {
    CHECK_THROWS_WITH_AS(
        parse_vidur_mlp_csv(header() + row(times(0), "32,8,4096,14336,128256,True,64,2"), "x.csv"),
        doctest::Contains("x.csv:2: field 'time_stats.emb.median' is '0.000000'"), Error);
    CHECK_THROWS_WITH_AS(
        parse_vidur_mlp_csv(header() + row(times(0.1), "32,8,4096,14336,128256,Maybe,64,2"),
                            "x.csv"),
        doctest::Contains("use_gated_mlp"), Error);
    CHECK_THROWS_WITH_AS(
        parse_vidur_mlp_csv(header() + row(times(0.1), "32,8,4096,14336,128256,True,64,3"),
                            "x.csv"),
        doctest::Contains("whole heads"), Error);
    CHECK_THROWS_WITH_AS(parse_vidur_mlp_csv("a,b\n1,2\n", "y.csv"),
                         doctest::Contains("y.csv:1: no column time_stats"), Error);
    CHECK_THROWS_WITH_AS(parse_vidur_mlp_csv("time_stats.add.median,b\n1,2\n", "y.csv"),
                         doctest::Contains("y.csv:2: no column 'num_tokens'"), Error);
    CHECK_THROWS_WITH_AS(parse_vidur_mlp_csv("", "z.csv"), doctest::Contains("z.csv: empty"),
                         Error);
  }

  TEST_CASE("the report: one group per operator in the layout's order, roofline beside") {
    const auto rows =
        parse_vidur_mlp_csv(header() + row(times(0.05), "32,8,4096,14336,128256,True,64,1") +
                                row(times(0.5), "32,8,4096,14336,128256,True,2048,1"),
                            "m/mlp.csv");
    const GpuSpec& gpu = find_gpu("a40");
    const EvalReport rep = evaluate_vidur_ops(rows, gpu, Predictor::roofline);
    REQUIRE(rep.groups.size() == 10);
    CHECK(rep.n == 20);
    for (std::size_t i = 0; i < rep.groups.size(); ++i) {
      CHECK(rep.groups[i].op == vidur_op_names()[i]);
      CHECK(rep.groups[i].gpu == gpu.name);
      CHECK(rep.groups[i].n == 2);
      CHECK(rep.groups[i].mape_pct == rep.groups[i].roofline_mape_pct);
    }
  }
}
