// torch.compile's fusion (graph/engines/compiled.cpp): chains of vector kernels become one
// kernel moving only the chain's external traffic; GEMMs, FLOPs, parameters and saved bytes
// are unchanged; the compiled forecast of the dataset's fusion labels (A100 PCIe, measured
// under torch.compile) within 10%.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "graph/engines/engines.hpp"
#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

std::int64_t count_kind(const OpGraph& g, OpKind kind) {
  std::int64_t n = 0;
  for (const auto& s : g.sections)
    for (const auto& o : s.ops)
      if (o.kind == kind) n += s.count;
  return n;
}

GraphOp vec_op(Op op, std::int64_t rows, std::int64_t h, std::string name) {
  GraphOp o;
  const std::int64_t dims[2] = {rows, h};
  o.kernel = make_kernel(op, dims, 2, DataType::fp32);
  o.name = std::move(name);
  return o;
}

}  // namespace

TEST_SUITE("fusion") {
  TEST_CASE("a chain of unary kernels moves its input once and its output once") {
    OpGraph g;
    g.sections.push_back({"s",
                          1,
                          {vec_op(Op::mulu, 64, 1024, "a"), vec_op(Op::tanh, 64, 1024, "b"),
                           vec_op(Op::addu, 64, 1024, "c")}});
    const OpGraph f = detail::fuse_vector_chains(g);
    REQUIRE(f.sections[0].ops.size() == 1);
    const GraphOp& o = f.sections[0].ops[0];
    CHECK(o.fused_kernels == 3);
    CHECK(o.name == "a+b+c");
    // each member reads and writes 64 x 1024 floats; the chain reads once and writes once
    CHECK(kernel_bytes(o.kernel) * o.traffic_scale == doctest::Approx(2.0 * 64 * 1024 * 4));
  }

  TEST_CASE("a binary member's second operand is external traffic") {
    OpGraph g;
    g.sections.push_back(
        {"s", 1, {vec_op(Op::add, 64, 1024, "add"), vec_op(Op::ln, 64, 1024, "ln")}});
    const GraphOp o = detail::fuse_vector_chains(g).sections[0].ops[0];
    const double out = 64.0 * 1024 * 4;
    const double expected = kernel_bytes(g.sections[0].ops[0].kernel) +
                            kernel_bytes(g.sections[0].ops[1].kernel) - 2 * out;
    CHECK(kernel_bytes(o.kernel) * o.traffic_scale == doctest::Approx(expected));
    CHECK(expected == doctest::Approx(3 * out));  // x and the residual read, the output written
  }

  TEST_CASE("GEMMs break chains and stay library kernels; the sums are kept") {
    for (const char* id : {"gpt2-large", "bert-large", "llama2-7b", "switch-xl-4"})
      for (Mode mode : {Mode::training, Mode::inference}) {
        CAPTURE(id);
        const ModelConfig& m = find_model(id);
        const Workload w = make_workload(mode, 2, 256);
        const OpGraph eager = build_op_graph(m, w);
        const OpGraph compiled = build_engine_graph(m, w, Engine::compiled);
        CHECK(graph_kernel_count(compiled) < graph_kernel_count(eager));
        CHECK(count_kind(compiled, OpKind::gemm) == count_kind(eager, OpKind::gemm));
        CHECK(count_kind(compiled, OpKind::attention_bmm) ==
              count_kind(eager, OpKind::attention_bmm));
        for (Phase p : {Phase::forward, Phase::backward, Phase::accumulate})
          CHECK(graph_flops(compiled, p) == doctest::Approx(graph_flops(eager, p)));
        CHECK(graph_param_count(compiled) == doctest::Approx(graph_param_count(eager)));
        CHECK(graph_saved_bytes(compiled) == doctest::Approx(graph_saved_bytes(eager)));
      }
  }

  TEST_CASE("compiled is faster than eager and keeps the GEMM time") {
    const GpuSpec& gpu = find_gpu("a100-40gb-sxm");
    const ModelConfig& m = find_model("gpt2-large");
    for (Mode mode : {Mode::training, Mode::inference}) {
      const Workload w = make_workload(mode, 4, 1024);
      const ModelForecast e = forecast_graph(gpu, build_op_graph(m, w), w, Predictor::tilecast);
      const ModelForecast c =
          forecast_graph(gpu, build_engine_graph(m, w, Engine::compiled), w, Predictor::tilecast);
      CHECK(c.latency_ms < e.latency_ms);
      CHECK(c.latency_ms > 0.6 * e.latency_ms);
      CHECK(c.flops == doctest::Approx(e.flops));
      CHECK(c.kernels < e.kernels);
      const int gemm = static_cast<int>(OpKind::gemm);
      CHECK(c.breakdown_ms[gemm] == doctest::Approx(e.breakdown_ms[gemm]).epsilon(0.05));
    }
  }

  TEST_CASE("the API and the CLI name the engine; fused is the serving engine's") {
    const std::string base =
        R"({"gpu":"a100-40gb-pcie","model":"gpt2","batch":2,"seq":128,"mode":"inference")";
    const auto j = nlohmann::json::parse(api::forecast_model(base + R"(,"engine":"compiled"})"));
    CHECK(j["engine"] == "compiled");
    const auto e = nlohmann::json::parse(api::forecast_model(base + "}"));
    CHECK(e["engine"] == "eager");
    CHECK(j["latency_ms"].get<double>() < e["latency_ms"].get<double>());
    CHECK_THROWS_WITH_AS(api::forecast_model(base + R"(,"engine":"fused"})"),
                         doctest::Contains("'engine'"), Error);
    CHECK_THROWS_WITH_AS(api::forecast_model(base + R"(,"engine":"jit"})"),
                         doctest::Contains("compiled"), Error);
    const auto cli = test::run_cli(
        "forecast --gpu a100-40gb-pcie --model gpt2 --seq 128 --mode inference --compile");
    CHECK(cli.code == 0);
    CHECK(cli.output.find("torch.compile") != std::string::npos);
  }

  TEST_CASE("serving with the compiled engine says so and is no slower than eager") {
    const std::string base =
        R"({"gpu":"a100-40gb-sxm","model":"llama2-7b","prompt":256,"output":16,"precision":"fp16")";
    const auto c = nlohmann::json::parse(api::forecast_serving(base + R"(,"engine":"compiled"})"));
    const auto e = nlohmann::json::parse(api::forecast_serving(base + R"(,"engine":"eager"})"));
    CHECK(c["prefill_ms"].get<double>() <= e["prefill_ms"].get<double>());
    CHECK(c["caveats"].dump().find("torch.compile") != std::string::npos);
  }

  TEST_CASE("the dataset's torch.compile labels within 10%") {
    const std::string labels = test::data_dir() + "/labels/NVIDIA_A100-PCIE-40GB/";
    struct Case {
      const char* file;
      const char* model;
      std::int64_t seq, batch;
    };
    const GpuSpec& gpu = find_gpu("a100-40gb-pcie");
    for (const Case& c : {Case{"bert_large-inf-512-8-fusion", "bert-large", 512, 8},
                          Case{"bert_large-inf-512-16-fusion", "bert-large", 512, 16},
                          Case{"gpt2_large-inf-1024-4-fusion", "gpt2-large", 1024, 4},
                          Case{"gpt2_large-inf-1024-8-fusion", "gpt2-large", 1024, 8}}) {
      CAPTURE(c.file);
      const double measured =
          nlohmann::json::parse(test::read_file(labels + c.file + ".json"))["e2e_latency"]
              .get<double>();
      const Workload w = make_workload(Mode::inference, c.batch, c.seq);
      const double predicted =
          forecast_graph(gpu, build_engine_graph(find_model(c.model), w, Engine::compiled), w,
                         Predictor::tilecast)
              .latency_ms;
      CHECK(std::abs(predicted - measured) / measured < 0.10);
    }
  }
}
