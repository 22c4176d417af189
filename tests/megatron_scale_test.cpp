// The megatron engine at scale (issue 28 items 2-5; docs/megatron.md): clusters of thousands of
// GPUs on the catalog's DGX systems, NCCL's hierarchical latency across nodes, context and
// expert parallelism (memory and time move the way they must, bad combinations name the
// fields), the plan search, models given by their sizes.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "parallel/megatron.hpp"
#include "tilecast/api.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

ModelConfig gpt(std::int64_t h, std::int64_t layers, std::int64_t heads) {
  const nlohmann::json sizes = {{"hidden", h},    {"layers", layers}, {"heads", heads},
                                {"vocab", 51200}, {"seq", 2048},      {"mlp", "gelu"}};
  return model_from_sizes(sizes.dump(), "test");
}

MegatronForecast run(const char* gpu, const char* system, const ModelConfig& m, std::int64_t batch,
                     std::int64_t seq, const MegatronConfig& c) {
  Workload w = make_workload(Mode::training, batch, seq);
  w.dtype = DataType::bf16;
  return forecast_megatron(find_gpu(gpu), find_system(system), m, w, c, Predictor::tilecast);
}

}  // namespace

TEST_SUITE("megatron scale") {
  TEST_CASE("thousands of GPUs on the catalog's DGX systems, within sanity bounds") {
    CHECK(find_system("dgx-a100").max_nodes * 8 >= 4480);
    CHECK(find_system("dgx-h100").max_nodes * 8 >= 4096);
    // GPT 1T-class on 3,072 A100s (tp 8, pp 64, dp 6) and GPT-3 175B on 4,480 (tp 8, pp 8,
    // dp 70), Llama-2 70B on 4,096 H100s (tp 8, pp 4, dp 128)
    MegatronConfig c;
    c.tp = 8;
    c.pp = 64;
    c.dp = 6;
    c.microbatches = 512;
    c.sequence_parallel = true;
    c.recompute = Recompute::selective;
    const MegatronForecast a =
        run("a100-80gb-sxm", "dgx-a100", gpt(25600, 128, 160), 3072, 2048, c);
    c.pp = 8;
    c.dp = 70;
    c.microbatches = 16;
    c.virtual_stages = 3;
    const MegatronForecast b = run("a100-80gb-sxm", "dgx-a100", gpt(12288, 96, 96), 1120, 2048, c);
    c = MegatronConfig{};
    c.tp = 8;
    c.pp = 4;
    c.dp = 128;
    c.microbatches = 8;
    c.virtual_stages = 5;
    c.sequence_parallel = true;
    const MegatronForecast h = run("h100-sxm", "dgx-h100", find_model("llama2-70b"), 1024, 4096, c);
    CHECK(a.config.gpus() == 3072);
    CHECK(b.config.gpus() == 4480);
    CHECK(h.config.gpus() == 4096);
    for (const MegatronForecast* f : {&a, &b, &h}) {
      CHECK(f->mfu > 0.15);  // published runs at this scale: 30-55 % MFU
      CHECK(f->mfu < 0.75);
      CHECK(f->memory.fits);
      CHECK(f->breakdown.dp_comm_ms < 0.2 * f->step_ms);
      MESSAGE(f->config.gpus() << " GPUs: step " << f->step_ms << " ms, MFU " << f->mfu);
    }
    // a system file with max_nodes K takes K x gpus_per_node GPUs, and no more
    SystemSpec s = find_system("dgx-a100");
    s.max_nodes = 1000;
    c.pp = 8;
    c.dp = 125;
    c.virtual_stages = 1;
    Workload w = make_workload(Mode::training, 1000, 2048);
    w.dtype = DataType::bf16;
    CHECK(forecast_megatron(find_gpu("a100-80gb-sxm"), s, gpt(12288, 96, 96), w, c,
                            Predictor::tilecast)
              .step_ms > 0);
    c.dp = 126;
    w.batch = 1008;
    CHECK_THROWS_WITH_AS(forecast_megatron(find_gpu("a100-80gb-sxm"), s, gpt(12288, 96, 96), w, c,
                                           Predictor::tilecast),
                         doctest::Contains("max_nodes"), Error);
    // with no system given, the catalog's system built from the GPU is found for 4,096 GPUs
    const nlohmann::json req = {{"gpu", "h100-sxm"},
                                {"model", "llama2-70b"},
                                {"batch", 1024},
                                {"seq", 4096},
                                {"mode", "training"},
                                {"engine", "megatron"},
                                {"gpus", 4096},
                                {"tp", 8},
                                {"pp", 4},
                                {"microbatches", 8},
                                {"sequence_parallel", true}};
    const nlohmann::json j = nlohmann::json::parse(api::forecast_model(req.dump()));
    CHECK(j["parallel"]["system"] == "dgx-h100");
  }

  TEST_CASE("across nodes, NCCL's hierarchical latency: network steps only between nodes") {
    const SystemSpec& s = find_system("dgx-a100");
    CollectiveRequest r;
    r.collective = Collective::kAllReduce;
    r.algorithm = CommAlgorithm::kRing;
    r.bytes = 1e6;
    r.gpus = 512;
    r.gpus_per_node = 8;
    const CollectiveForecast flat = forecast_collective(s, r);
    r.hierarchical = true;
    const CollectiveForecast hier = forecast_collective(s, r);
    CHECK(hier.latency_ms < flat.latency_ms / 4);  // 2 x 64 network steps, not 2 x 511
    CHECK(hier.transfer_ms == flat.transfer_ms);   // the bandwidth term is the slowest hop's
    CHECK(hier.steps == flat.steps);
    r.gpus_per_node = 1;  // one GPU a node: every step crosses the network either way
    r.gpus = 64;
    r.hierarchical = false;
    const double f1 = forecast_collective(s, r).time_ms;
    r.hierarchical = true;
    CHECK(forecast_collective(s, r).time_ms == doctest::Approx(f1));
  }

  TEST_CASE("context parallelism: less memory and a shorter step per cp; errors name fields") {
    const ModelConfig m = find_model("llama3-8b");
    MegatronConfig c;
    c.tp = 2;
    c.dp = 2;
    c.microbatches = 4;
    c.sequence_parallel = true;
    double last_act = 1e30, last_step = 1e30;
    for (int cp : {1, 2, 4}) {
      c.cp = cp;
      const MegatronForecast f = run("h100-sxm", "dgx-h100", m, 8, 32768, c);
      CHECK(f.memory.activations_gb < last_act);
      CHECK(f.step_ms < last_step);
      CHECK(f.config.gpus() == 4 * cp);
      last_act = f.memory.activations_gb;
      last_step = f.step_ms;
    }
    c.cp = 2;
    c.attention = AttentionKernel::fused_softmax;
    CHECK_THROWS_WITH_AS(run("h100-sxm", "dgx-h100", m, 8, 8192, c), doctest::Contains("cp 2"),
                         Error);
    c.attention = AttentionKernel::flash;
    CHECK_THROWS_WITH_AS(run("h100-sxm", "dgx-h100", m, 8, 8190, c),
                         doctest::Contains("not a multiple of 4"), Error);
    c.cp = 0;
    CHECK_THROWS_WITH_AS(run("h100-sxm", "dgx-h100", m, 8, 8192, c), doctest::Contains("cp"),
                         Error);
  }

  TEST_CASE("expert parallelism: experts' memory / ep, all-to-all per MoE layer; errors") {
    const ModelConfig m = find_model("mixtral-8x7b");
    MegatronConfig c;
    c.tp = 2;
    c.pp = 4;
    c.dp = 8;
    c.microbatches = 8;
    c.sequence_parallel = true;
    c.recompute = Recompute::full;
    double last_weights = 1e30;
    MegatronForecast f1;
    for (int ep : {1, 2, 4, 8}) {
      c.ep = ep;
      const MegatronForecast f = run("h100-sxm", "dgx-h100", m, 64, 4096, c);
      CHECK(f.memory.weights_gb < last_weights);
      last_weights = f.memory.weights_gb;
      if (ep == 1) f1 = f;
      CHECK(f.step_ms > 0.5 * f1.step_ms);  // the same work, now exchanged
      CHECK(f.step_ms < 2.0 * f1.step_ms);
    }
    // more routed experts per token: more expert GEMM rows, a longer step
    ModelConfig k4 = m;
    k4.experts_per_token = 4;
    CHECK(run("h100-sxm", "dgx-h100", k4, 64, 4096, c).step_ms >
          run("h100-sxm", "dgx-h100", m, 64, 4096, c).step_ms);
    // MFU counts the active parameters: top-2 of 8 experts, not all 8
    const MegatronForecast f = run("h100-sxm", "dgx-h100", m, 64, 4096, c);
    CHECK(f.mfu < 0.9);
    CHECK(f.mfu > 0.1);
    c.ep = 3;
    CHECK_THROWS_WITH_AS(run("h100-sxm", "dgx-h100", m, 64, 4096, c), doctest::Contains("ep 3"),
                         Error);
    c.ep = 16;
    CHECK_THROWS_WITH_AS(run("h100-sxm", "dgx-h100", m, 64, 4096, c),
                         doctest::Contains("must divide dp"), Error);
    c.ep = 2;
    c.sequence_parallel = false;
    CHECK_THROWS_WITH_AS(run("h100-sxm", "dgx-h100", m, 64, 4096, c),
                         doctest::Contains("sequence_parallel"), Error);
    c.sequence_parallel = true;
    CHECK_THROWS_WITH_AS(run("h100-sxm", "dgx-h100", find_model("llama3-8b"), 64, 4096, c),
                         doctest::Contains("dense"), Error);
  }

  TEST_CASE("the plan search keeps what fits, fastest first") {
    MegatronPlanRequest q;
    q.gpus = 64;
    q.global_batch = 128;
    q.seq = 4096;
    q.max_microbatch_size = 2;
    q.max_virtual_stages = 2;
    q.top = 5;
    const MegatronPlanResult r =
        plan_megatron(find_gpu("h100-sxm"), find_system("dgx-h100"), find_model("llama3-8b"), q);
    CHECK(r.considered > 100);
    CHECK(r.fitting > 0);
    CHECK(r.considered == r.fitting + r.does_not_fit + r.does_not_divide);
    REQUIRE(r.by_step.size() == 5);
    for (std::size_t i = 1; i < r.by_step.size(); ++i)
      CHECK(r.by_step[i - 1].step_ms <= r.by_step[i].step_ms);
    for (const MegatronPlanEntry& e : r.by_step) {
      CHECK(e.config.gpus() == 64);
      CHECK(e.memory_gb <= e.capacity_gb);
    }
    // the best one is what forecast_megatron says for it
    const MegatronPlanEntry& best = r.by_step[0];
    Workload w = make_workload(Mode::training, 128, 4096);
    w.dtype = DataType::bf16;
    CHECK(forecast_megatron(find_gpu("h100-sxm"), find_system("dgx-h100"), find_model("llama3-8b"),
                            w, best.config, Predictor::tilecast)
              .step_ms == doctest::Approx(best.step_ms));
    q.gpus = 100000;
    CHECK_THROWS_WITH_AS(
        plan_megatron(find_gpu("h100-sxm"), find_system("dgx-h100"), find_model("llama3-8b"), q),
        doctest::Contains("gpus"), Error);
  }

  TEST_CASE("a model by its sizes: the architecture table's row, every size checked") {
    const ModelConfig llama = model_from_sizes(
        R"({"hidden": 8192, "layers": 80, "heads": 64, "query_groups": 8, "ffn": 28672,
            "vocab": 32000, "seq": 4096, "mlp": "swiglu"})",
        "t");
    const ModelConfig ref = find_model("llama2-70b");
    CHECK(llama.architecture == ref.architecture);
    CHECK(llama.num_kv_heads == 8);
    CHECK(llama.params() == doctest::Approx(ref.params()).epsilon(0.001));
    const ModelConfig g = gpt(6144, 48, 64);
    CHECK(g.architecture == Architecture::gpt2);
    CHECK(g.intermediate_size == 4 * 6144);
    CHECK(g.max_positions == 2048);
    auto err = [](const char* text) {
      try {
        (void)model_from_sizes(text, "sizes");
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(err(R"({"hidden": 64, "layers": 2, "heads": 4})").find("'vocab'") != std::string::npos);
    CHECK(err(R"({"hidden": 64, "layers": 2, "heads": 4, "vocab": 10, "mlp": "relu"})")
              .find("swiglu, gelu") != std::string::npos);
    CHECK(err(R"({"hidden": 64, "layers": 2, "heads": 4, "vocab": 10, "mlp": "gelu",
                  "positions": "rotary"})")
              .find("available") != std::string::npos);
    CHECK(err(R"({"hidden": 64, "layers": 2, "heads": 4, "vocab": 10, "query_groups": 3})")
              .find("query_groups") != std::string::npos);
    CHECK(err(R"({"hidden": 64, "layers": 2, "heads": 4, "vocab": 10, "widht": 3})")
              .find("allowed") != std::string::npos);
    // the API takes {"sizes": {...}} wherever it takes a model
    const nlohmann::json req = {
        {"gpu", "a100-80gb-sxm"},
        {"model", {{"sizes", {{"hidden", 2048}, {"layers", 4}, {"heads", 16}, {"vocab", 32000}}}}},
        {"batch", 8},
        {"seq", 1024},
        {"mode", "training"},
        {"engine", "megatron"},
        {"gpus", 2},
        {"tp", 2}};
    CHECK(nlohmann::json::parse(api::forecast_model(req.dump()))["step_ms"].get<double>() > 0);
  }
}
