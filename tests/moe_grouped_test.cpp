// Transformers 5's default experts, grouped_mm (graph/blocks/moe.cpp): the config field that
// picks it, the GPU fact that decides how PyTorch runs torch._grouped_mm (one grouped kernel on
// compute capability 9.0 and 10.0 in BF16, else the fallback's host synchronisation and a GEMM
// per expert), the graph's kernels either way, and that forecasts follow. No grouped_mm run was
// measured: these check the graph against the libraries' code, not the figures.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernel/library_profile.hpp"
#include "support/helpers.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_config.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace moe_grouped_test {  // named: the unity build joins this file with moe_sync_test's

ModelConfig transformers5(const std::string& id, ExpertsImplementation e) {
  ModelConfig m = find_model(id);
  m.transformers_major = 5;
  m.experts_implementation = e;
  return m;
}

// Mixtral's config.json with the two tilecast fields set as given ("" leaves one out).
ModelConfig mixtral_config(const std::string& version, const std::string& experts) {
  std::string json = R"({"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 2, "num_key_value_heads": 8, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2)";
  if (!version.empty()) json += R"(, "tilecast_transformers_version": ")" + version + "\"";
  if (!experts.empty()) json += R"(, "tilecast_experts_implementation": ")" + experts + "\"";
  return parse_model_config(json + "}", "mixtral.json");
}

const GraphSection& experts(const OpGraph& g) {
  return test::section_named(g, "decoder layer (experts)");
}

int count(const GraphSection& s, Phase phase, bool (*pick)(const GraphOp&)) {
  int n = 0;
  for (const auto& o : s.ops) n += o.phase == phase && pick(o) ? 1 : 0;
  return n;
}

bool is_sync(const GraphOp& o) { return o.host_sync; }
bool is_grouped_gemm(const GraphOp& o) { return o.kind == OpKind::gemm && o.kernel.op == Op::bmm; }
bool is_expert_linear(const GraphOp& o) {
  return o.kernel.op == Op::linear && o.name.rfind("experts ", 0) == 0;
}

Workload bf16(Mode mode, std::int64_t batch, std::int64_t seq, bool grouped_kernel) {
  Workload w = make_workload(mode, batch, seq);
  w.dtype = DataType::bf16;
  if (mode == Mode::training) w.master_weights = MasterWeights::half;
  w.grouped_mm_bf16_kernel = grouped_kernel;
  return w;
}

TEST_SUITE("moe_grouped") {
  TEST_CASE("the config picks the experts implementation its transformers release runs") {
    CHECK(mixtral_config("", "").experts_implementation == ExpertsImplementation::eager);
    CHECK(mixtral_config("4.57.1", "").experts_implementation == ExpertsImplementation::eager);
    CHECK(mixtral_config("5.2.0", "").experts_implementation == ExpertsImplementation::grouped_mm);
    CHECK(mixtral_config("5.2.0", "eager").experts_implementation == ExpertsImplementation::eager);
    CHECK(mixtral_config("4.57.1", "eager").experts_implementation == ExpertsImplementation::eager);
    const std::string v4 = test::error_of([] { (void)mixtral_config("4.57.1", "grouped_mm"); });
    CHECK(v4.find("mixtral.json: field 'tilecast_experts_implementation'") == 0);
    CHECK(v4.find("allowed: eager)") != std::string::npos);
    const std::string unknown = test::error_of([] { (void)mixtral_config("5.2.0", "batched_mm"); });
    CHECK(unknown.find("\"batched_mm\"") != std::string::npos);
    CHECK(unknown.find("allowed: eager, grouped_mm") != std::string::npos);
    CHECK(experts_implementation_name(ExpertsImplementation::grouped_mm) == "grouped_mm");
  }

  TEST_CASE("PyTorch's grouped kernel exists on compute capability 9.0 and 10.0 only") {
    // and the graph a forecast times on the GPU (build_gpu_graph) runs it there only
    const ModelConfig m = mixtral_config("5.2.0", "");
    auto grouped_gemms = [&](const char* id) {  // whatever the workload said before
      int n[2];
      for (const bool said : {false, true})
        n[said] = count(experts(build_gpu_graph(find_gpu(id), m, bf16(Mode::inference, 1, 8, said),
                                                Engine::eager)),
                        Phase::forward, is_grouped_gemm);
      CHECK(n[0] == n[1]);
      return n[0];
    };
    for (const char* id : {"h100-sxm", "h100-pcie", "h200", "b200", "gb200"}) {
      CAPTURE(id);
      CHECK(grouped_mm_bf16_kernel(find_gpu(id)));
      CHECK(grouped_gemms(id) == 2);  // gate_up and down
    }
    for (const char* id : {"a100-80gb-sxm", "l40s", "rtx-4090", "rtx-5090", "v100-sxm", "mi300x"}) {
      CAPTURE(id);
      CHECK_FALSE(grouped_mm_bf16_kernel(find_gpu(id)));
      CHECK(grouped_gemms(id) == 0);
    }
    // every NVIDIA catalog GPU states its compute capability; AMD's have none
    for (const GpuSpec& g : gpu_catalog()) {
      CAPTURE(g.id);
      CHECK((g.vendor == "NVIDIA") == (g.compute_capability >= 60));
    }
    CHECK(find_gpu("rtx-5090").compute_capability == 120);
    // a custom GPU without the field: the fallback; with it, the catalog's rule
    std::string spec = R"({"name": "X", "vendor": "NVIDIA", "num_sm": 132, "cores_per_sm": 128,
      "boost_clock_mhz": 1980, "fp32_gflops": 67000, "mem_gb": 80, "mem_bw_gbps": 3350,
      "l2_mb": 50)";
    CHECK_FALSE(grouped_mm_bf16_kernel(parse_gpu_spec(spec + "}", "x.json")));
    CHECK(grouped_mm_bf16_kernel(
        parse_gpu_spec(spec + R"(, "compute_capability": "9.0"})", "x.json")));
    for (const char* bad : {"9", "9.10", "x.0", "0.9", "20.0", ""}) {
      CAPTURE(bad);
      const std::string e = test::error_of([&] {
        (void)parse_gpu_spec(spec + R"(, "compute_capability": ")" + bad + "\"}", "x.json");
      });
      CHECK(e.find("x.json: field 'compute_capability'") == 0);
      CHECK(e.find("allowed: NVIDIA's major.minor") != std::string::npos);
    }
  }

  TEST_CASE("one grouped GEMM per projection where the GPU has the kernel, no host wait") {
    // 2 x 32 tokens, top-2 of 8 experts: 128 pairs, 16 rows an expert
    const ModelConfig m = transformers5("mixtral-8x7b", ExpertsImplementation::grouped_mm);
    const OpGraph g = build_op_graph(m, bf16(Mode::inference, 2, 32, true));
    const GraphSection& s = experts(g);
    CHECK(count(s, Phase::forward, is_sync) == 0);
    REQUIRE(count(s, Phase::forward, is_grouped_gemm) == 2);
    std::vector<std::array<std::int64_t, 4>> dims;
    for (const auto& o : s.ops)
      if (is_grouped_gemm(o))
        dims.push_back({o.kernel.dims[0], o.kernel.dims[1], o.kernel.dims[2], o.kernel.dims[3]});
    CHECK(dims[0] == std::array<std::int64_t, 4>{8, 16, 4096, 2 * 14336});
    CHECK(dims[1] == std::array<std::int64_t, 4>{8, 16, 14336, 4096});
    // the same parameters as the eager loop's graph (every expert resident)
    const ModelConfig loop = transformers5("mixtral-8x7b", ExpertsImplementation::eager);
    CHECK(graph_param_count(g) ==
          graph_param_count(build_op_graph(loop, bf16(Mode::inference, 2, 32, true))));
    CHECK(graph_param_count(g) == doctest::Approx(m.params()).epsilon(0.001));
    // the pairs sorted twice (argsort, its inverse) in one small-sort kernel each: 128 <= 4096
    int sorts = 0;
    for (const auto& o : s.ops)
      if (o.stands_for == "sort") {
        ++sorts;
        CHECK(o.mem_elements == 4 * 128 * 4.0);  // keys and indices read and written; an int64
                                                 // is 4 BF16 elements
      }
    CHECK(sorts == 2);
  }

  TEST_CASE("elsewhere PyTorch's fallback: the offsets to the host, a GEMM per expert") {
    const ModelConfig m = transformers5("mixtral-8x7b", ExpertsImplementation::grouped_mm);
    for (const bool kernel : {false, true}) {
      Workload w = bf16(Mode::inference, 2, 32, kernel);
      if (kernel) w.dtype = DataType::fp16;  // the grouped kernel is BF16's only
      const OpGraph g = build_op_graph(m, w);
      const GraphSection& s = experts(g);
      CHECK(count(s, Phase::forward, is_sync) == 2);
      CHECK(count(s, Phase::forward, is_grouped_gemm) == 0);
      CHECK(count(s, Phase::forward, is_expert_linear) == 2 * 8);
    }
    // training: the backward's grouped calls wait too (input and weight gradients)
    const OpGraph trained = build_op_graph(m, bf16(Mode::training, 1, 64, false));
    const GraphSection& t = experts(trained);
    CHECK(count(t, Phase::backward, is_sync) == 2 * 2);
  }

  TEST_CASE("training on the grouped kernel: input and weight gradients grouped too") {
    const ModelConfig m = transformers5("mixtral-8x7b", ExpertsImplementation::grouped_mm);
    const OpGraph g = build_op_graph(m, bf16(Mode::training, 1, 64, true));
    const GraphSection& s = experts(g);
    CHECK(count(s, Phase::backward, is_sync) == 0);
    CHECK(count(s, Phase::backward, is_grouped_gemm) == 2 * 2);
    CHECK(count(s, Phase::accumulate,
                [](const GraphOp& o) { return o.name.rfind("experts ", 0) == 0; }) == 2);
    // autocast over FP32 master weights: transformers casts the input to the weights' FP32,
    // which PyTorch runs through the fallback
    Workload autocast = bf16(Mode::training, 1, 64, true);
    autocast.master_weights = MasterWeights::fp32;
    CHECK(count(experts(build_op_graph(m, autocast)), Phase::forward, is_sync) == 2);
  }

  TEST_CASE("forecasts follow: no expert loop waiting on the host, the kernel faster still") {
    // Qwen3-30B-A3B: 128 experts, top-8, 48 layers; prefill of 2,048 tokens in BF16
    const GpuSpec& h100 = find_gpu("h100-sxm");
    Workload w = make_workload(Mode::inference, 1, 2048);
    w.dtype = DataType::bf16;
    auto ms = [&](const GpuSpec& gpu, ExpertsImplementation e) {
      return forecast_model(gpu, transformers5("qwen3-30b-a3b", e), w, Predictor::tilecast)
          .latency_ms;
    };
    const double loop = ms(h100, ExpertsImplementation::eager);
    const double grouped = ms(h100, ExpertsImplementation::grouped_mm);
    CHECK(grouped < loop / 5);  // 128 x 5 host waits a layer gone
    // the A100 runs the fallback: no loop's waits, but a GEMM per expert and two waits a layer
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    const double fallback = ms(a100, ExpertsImplementation::grouped_mm);
    CHECK(fallback < ms(a100, ExpertsImplementation::eager));
    CHECK(fallback > grouped);
  }

  TEST_CASE("the CLI's text and JSON forecasts time the same graph") {
    // the text path built its graph apart and missed the GPU's grouped kernel (issue 31: one
    // place builds every timed graph)
    namespace fs = std::filesystem;
    const fs::path config = fs::temp_directory_path() / "tilecast-moe-grouped-qwen3.json";
    auto j =
        nlohmann::json::parse(test::read_file(test::repo_dir() + "/model_zoo/qwen3-30b-a3b.json"));
    j["tilecast_transformers_version"] = "5.2.0";
    std::ofstream(config.string()) << j.dump();
    const std::string args = "forecast --gpu h100-sxm --model '" + config.string() +
                             "' --seq 512 --mode prefill --precision bf16";
    const test::CliRun json = test::run_cli(args + " --json");
    const test::CliRun text = test::run_cli(args);
    REQUIRE(json.code == 0);
    REQUIRE(text.code == 0);
    char ms[32];
    std::snprintf(ms, sizeof ms, "%10.3f ms",
                  nlohmann::json::parse(json.output).at("latency_ms").get<double>());
    CHECK(text.output.find(std::string("latency      ") + ms) != std::string::npos);
    fs::remove(config);
  }

  TEST_CASE("eval-e2e runs each label with the experts implementation it ran") {
    // the H200 Switch run with two of its labels marked in machine.json as the kit records them
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "tilecast-moe-grouped-e2e";
    fs::remove_all(dir);
    fs::copy(test::repo_dir() + "/data/measured/h200/fp32-seed2-switch", dir,
             fs::copy_options::recursive);
    auto machine = nlohmann::json::parse(test::read_file((dir / "machine.json").string()));
    REQUIRE(machine.at("labels").size() >= 2);
    const std::string skipped = machine["labels"][0].at("label").get<std::string>();
    machine["labels"][0]["experts_implementation"] = "batched_mm";
    machine["labels"][1]["experts_implementation"] = "eager";
    std::ofstream((dir / "machine.json").string()) << machine.dump();
    const std::string args = "eval-e2e --devices '" + (dir / "devices").string() + "' --models '" +
                             (dir / "models").string() + "' --labels '" +
                             (dir / "labels").string() + "'";
    const test::CliRun all = test::run_cli(args + " --json");
    REQUIRE(all.code == 0);
    const auto cases = nlohmann::json::parse(all.output).at("cases");
    CHECK(cases.size() + 1 ==
          test::files_in((dir / "labels" / "NVIDIA_H200").string(), ".json").size());
    const test::CliRun text = test::run_cli(args);
    CHECK(text.output.find("NVIDIA_H200/" + skipped +
                           " ran experts_implementation 'batched_mm', which tilecast does not "
                           "model (eager, grouped_mm): skipped") != std::string::npos);
    fs::remove_all(dir);
  }
}

}  // namespace moe_grouped_test
