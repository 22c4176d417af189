// ZeRO-3's parameter all-gathers (issue 32 item 5): each layer's weights gathered over dp before
// its forward and again before its backward, every micro-batch; the volume is the parameter
// bytes (x (dp-1)/dp received per GPU); without prefetch ZeRO-3 is never faster than ZeRO-2 for
// the same layout; the prefetched default (DeepSpeed's and FSDP's) is never slower than that,
// and the assumptions say which.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "parallel/parallel.hpp"
#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

ParallelForecast run(const std::string& model, std::int64_t batch, std::int64_t seq,
                     ParallelConfig c, const char* gpu = "a100-40gb-sxm",
                     const char* system = "dgx-a100", DataType dtype = DataType::fp32) {
  Workload w = make_workload(Mode::training, batch, seq);
  w.dtype = dtype;
  return forecast_parallel(find_gpu(gpu), find_system(system), find_model(model), w, c,
                           Predictor::tilecast);
}

}  // namespace

TEST_SUITE("zero3") {
  TEST_CASE("the gathered volume is every layer's parameters, twice per micro-batch") {
    // one stage, tp 1: the stage's parameters are the model's
    for (int dp : {2, 4, 8})
      for (int m : {1, 2}) {
        ParallelConfig c{.dp = dp, .microbatches = m, .zero = 3};
        const ParallelForecast f = run("gpt2-large", 4 * dp, 256, c);
        const ParamGathers& pg = f.param_gathers;
        // the graph's sections: the layers plus embeddings and head
        CHECK(pg.gathers >= 2 * m * find_model("gpt2-large").num_layers);
        // FP32 weights: 4 bytes a parameter; twice (forward and backward) per micro-batch; GPT-2
        // ties its head to the embedding, gathered again where the head runs
        const ModelConfig& gpt2 = find_model("gpt2-large");
        const double tied = double(gpt2.vocab_size) * double(gpt2.hidden_size);
        CHECK(pg.gathered_gb >= 0.99 * 2.0 * m * f.params * 4 / 1e9);
        CHECK(pg.gathered_gb <= 1.01 * 2.0 * m * (f.params + tied) * 4 / 1e9);
        CHECK(pg.received_gb_per_gpu ==
              doctest::Approx(pg.gathered_gb * double(dp - 1) / double(dp)));
        // the largest gather is one layer (or the embeddings): far below the whole model
        CHECK(pg.largest_layer_gb > 0);
        CHECK(pg.largest_layer_gb < f.params * 4 / 1e9 / 4);
        CHECK(test::mentions(f.assumptions, "ZeRO-3 parameter all-gathers"));
        CHECK(test::mentions(f.assumptions, "prefetched one layer ahead"));
      }
    // tp shards the layers: each gather carries the tp rank's share
    ParallelConfig one{.dp = 4, .zero = 3};
    ParallelConfig two{.dp = 4, .tp = 2, .zero = 3};
    const ParallelForecast a = run("gpt2-large", 8, 256, one), b = run("gpt2-large", 8, 256, two);
    CHECK(b.param_gathers.gathered_gb < 0.6 * a.param_gathers.gathered_gb);
    CHECK(b.param_gathers.gathered_gb > 0.45 * a.param_gathers.gathered_gb);
    CHECK(all_gather_received_bytes(1e9, 8) == doctest::Approx(0.875e9));
    CHECK(all_gather_received_bytes(1e9, 1) == 0);
  }

  TEST_CASE("no gathers below ZeRO-3 or with one data-parallel rank") {
    for (int z = 0; z <= 2; ++z) {
      ParallelConfig c{.dp = 4, .zero = z};
      const ParallelForecast f = run("gpt2-large", 8, 256, c);
      CHECK(f.param_gathers.gathers == 0);
      CHECK(!test::mentions(f.assumptions, "ZeRO-3 parameter all-gathers"));
      const auto j = nlohmann::json::parse(
          parallel_forecast_to_json(find_gpu("a100-40gb-sxm"), find_model("gpt2-large"), f));
      CHECK(!j.contains("param_gathers"));
    }
    ParallelConfig c{.tp = 2, .zero = 3};
    CHECK(run("gpt2-large", 8, 256, c).param_gathers.gathers == 0);
  }

  TEST_CASE("without prefetch ZeRO-3 is never faster than ZeRO-2; prefetch is never slower") {
    struct Layout {
      const char* model;
      std::int64_t batch, seq;
      ParallelConfig c;
      const char* gpu;
      const char* system;
      DataType dtype;
    };
    const Layout layouts[] = {
        {"gpt2-large", 8, 512, {.dp = 8}, "a100-40gb-sxm", "dgx-a100", DataType::fp32},
        {"gpt2-large",
         16,
         512,
         {.dp = 4, .microbatches = 4},
         "a100-40gb-sxm",
         "dgx-a100",
         DataType::fp32},
        {"gpt2-large",
         8,
         256,
         {.dp = 2, .tp = 2, .pp = 2, .microbatches = 2},
         "a100-40gb-sxm",
         "dgx-a100",
         DataType::fp32},
        {"llama2-7b",
         32,
         1024,
         {.dp = 4, .tp = 2, .microbatches = 8},
         "h100-sxm",
         "dgx-h100",
         DataType::bf16},
        {"llama2-7b",
         16,
         1024,
         {.dp = 16, .microbatches = 1},
         "h100-sxm",
         "dgx-h100",
         DataType::bf16},  // two nodes: the gathers cross the network
    };
    for (const Layout& l : layouts) {
      CAPTURE(l.model);
      CAPTURE(l.c.dp);
      ParallelConfig z2 = l.c, z3 = l.c, z3_blocking = l.c;
      z2.zero = 2;
      z3.zero = 3;
      z3_blocking.zero = 3;
      z3_blocking.zero3_prefetch = false;
      const double two = run(l.model, l.batch, l.seq, z2, l.gpu, l.system, l.dtype).step_ms;
      const ParallelForecast three = run(l.model, l.batch, l.seq, z3, l.gpu, l.system, l.dtype);
      const ParallelForecast blocking =
          run(l.model, l.batch, l.seq, z3_blocking, l.gpu, l.system, l.dtype);
      CHECK(blocking.step_ms >= two);
      CHECK(three.step_ms <= blocking.step_ms);
      // the same gathers either way; only their overlap differs
      CHECK(blocking.param_gathers.gathers == three.param_gathers.gathers);
      CHECK(blocking.param_gathers.gathered_gb == doctest::Approx(three.param_gathers.gathered_gb));
      CHECK(test::mentions(blocking.assumptions, "not prefetched"));
      // blocking: every gather is exposed, so the exposed communication covers them all
      CHECK(blocking.communication_ms >= 0.999 * blocking.param_gathers.busy_ms);
    }
  }

  TEST_CASE("the gradient reduce-scatters queue behind the backward's gathers") {
    // prefetched ZeRO-3 against ZeRO-2 on one layout: ZeRO-3 has no post-step all-gather, but
    // its backward's buckets wait for the gathers issued before them on the dp group's stream
    ParallelConfig c{.dp = 8, .zero = 3};
    const ParallelForecast f = run("gpt2-large", 8, 512, c);
    double bucket_start = 0, bucket_end = 0;
    for (const auto& sp : f.stages[0].comm)
      if (sp.what == "gradient bucket (dp)") {
        if (bucket_end > 0) CHECK(sp.start_ms >= bucket_end - 1e-9);  // one stream: in order
        bucket_start = bucket_start > 0 ? bucket_start : sp.start_ms;
        bucket_end = sp.finish_ms;
      }
    CHECK(bucket_end > bucket_start);
    CHECK(f.step_ms >= bucket_end);
  }

  TEST_CASE("the JSON API reports the gathers") {
    const std::string req = R"({"gpu":"h100-sxm","model":"llama2-7b","batch":32,"seq":2048,
      "mode":"training","precision":"bf16","gpus":8,"tp":2,"dp":4,"zero":3,"system":"dgx-h100"})";
    const auto j = nlohmann::json::parse(api::forecast_model(req));
    REQUIRE(j.contains("param_gathers"));
    const auto& pg = j["param_gathers"];
    CHECK(pg["prefetched"] == true);
    CHECK(pg["gathers"].get<int>() >= 2 * 32);
    // llama2-7b's 6.7e9 parameters, tp 2, bf16 (2 bytes), forward and backward
    CHECK(pg["gathered_gb"].get<double>() ==
          doctest::Approx(2 * j["params_b"].get<double>() * 1e9 / 2 * 2 / 1e9).epsilon(0.03));
    CHECK(pg["received_gb_per_gpu"].get<double>() ==
          doctest::Approx(pg["gathered_gb"].get<double>() * 3 / 4));
  }
}
