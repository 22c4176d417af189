// Serving under load (docs/serving-load.md): the mixed-batch step against the static serving
// forecast's passes, the scheduler's invariants (every request finishes, the cache never
// overflows, preemption under pressure), arrivals and determinism, traces and bad input.
#include "tilecast/serving_load.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/format.hpp"
#include "forecast/work_budget.hpp"
#include "serve/fixed_costs.hpp"
#include "serve/simulator/batch_limits.hpp"
#include "serve/simulator/rng.hpp"
#include "serve/simulator/step_cost.hpp"
#include "support/load_requests.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;
using test::closed_loop;
using test::poisson;

namespace {

bool close(double a, double b, double rel) { return std::abs(a - b) <= rel * std::abs(b); }

}  // namespace

TEST_SUITE("serving_load") {
  TEST_CASE("the portable log matches the C library's and draws exponential gaps") {
    for (double x : {1e-300, 1e-9, 0.1, 0.5, 0.7071, 0.999999, 1.0, 3.0, 1e300})
      CHECK(close(detail::portable_log(x), std::log(x), 1e-15) == true);
    CHECK(detail::portable_log(1.0) == 0.0);
    detail::SplitMix64 a(7), b(7), c(8);
    CHECK(a.next() == b.next());
    CHECK(a.next() != c.next());
    detail::SplitMix64 rng(1);
    double sum = 0;
    for (int i = 0; i < 100000; ++i) sum += detail::exponential(rng, 2.0);
    CHECK(close(sum / 100000, 0.5, 0.01) == true);
  }

  TEST_CASE("a step's time is the static forecast's pass at the same shape") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    for (int tp : {1, 2}) {
      ServingRequest s;
      s.prompt = 512;
      s.output = 5;  // every decode step forecast
      s.batch = 8;
      s.tp = tp;
      const ServingForecast f = forecast_serving(gpu, model, s);
      detail::StepCost cost(gpu, model, s);
      detail::AttentionLoad prefill;
      for (int i = 0; i < 8; ++i) prefill.add(0, 512, 0);
      CHECK(close(cost.step_ms(8 * 512, 8, prefill), f.prefill_ms, 1e-9) == true);
      for (const auto& [cached, ms] : f.decode_ms_at) {
        detail::AttentionLoad decode;
        for (int i = 0; i < 8; ++i) decode.add(cached, 1, 0);
        CHECK(close(cost.step_ms(8, 8, decode), ms, 1e-9) == true);
      }
    }
  }

  TEST_CASE("the token grid: exact to 128, then 16 points per octave") {
    CHECK(detail::StepCost::grid_floor(100) == 100);
    CHECK(detail::StepCost::grid_floor(129) == 128);
    CHECK(detail::StepCost::grid_floor(136) == 136);
    CHECK(detail::StepCost::grid_next(128) == 136);
    CHECK(detail::StepCost::grid_floor(8191) == 7936);
    CHECK(detail::StepCost::grid_next(7936) == 8192);
  }

  TEST_CASE("one request alone: TTFT is its tokenisation and prefill, TPOT its decode steps") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama2-7b");
    LoadRequest r = poisson(1, 1, 512, 64);
    const LoadForecast f = simulate_serving(gpu, model, r);
    ServingRequest s = r.serving;
    const ServingForecast st = forecast_serving(gpu, model, s);
    CHECK(close(f.ttft_ms.p50, st.prefill_ms + detail::request_host_ms(512), 1e-9) == true);
    CHECK(close(f.tpot_ms.p50, st.decode_ms_per_token, 0.01) == true);
    CHECK(f.steps == 64);
    CHECK(f.preemptions == 0);
  }

  TEST_CASE("seeded and deterministic; light load runs at the offered rate") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    const LoadForecast a = simulate_serving(gpu, model, poisson(5, 2000));
    const LoadForecast b = simulate_serving(gpu, model, poisson(5, 2000));
    LoadRequest other = poisson(5, 2000);
    other.seed = 1;
    const LoadForecast c = simulate_serving(gpu, model, other);
    CHECK(a.e2e_ms.p99 == b.e2e_ms.p99);
    CHECK(a.ttft_ms.p50 == b.ttft_ms.p50);
    CHECK(a.e2e_ms.p99 != c.e2e_ms.p99);
    CHECK(close(a.requests_per_s, 5, 0.05) == true);
    CHECK(close(a.output_tokens_per_s, 5 * 128, 0.05) == true);
    // more load: longer latencies, more sequences per step
    const LoadForecast heavy = simulate_serving(gpu, model, poisson(40, 2000));
    CHECK(heavy.e2e_ms.p50 > a.e2e_ms.p50);
    CHECK(heavy.mean_batch_seqs > a.mean_batch_seqs);
    CHECK(a.ttft_ms.p50 <= a.ttft_ms.p90);
    CHECK(a.ttft_ms.p90 <= a.ttft_ms.p99);
  }

  TEST_CASE("closed loop: an offline run, and continuous against static batches") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    LoadRequest r = closed_loop(256, 256, 256, 256);  // all at once: offline
    const LoadForecast cont = simulate_serving(gpu, model, r);
    CHECK(cont.steps >= 256);
    r.scheduler = Scheduler::static_batch;
    const LoadForecast stat = simulate_serving(gpu, model, r);
    CHECK(stat.steps == 256);  // one prefill, 255 decode steps
    CHECK(stat.ttft_ms.p50 == stat.ttft_ms.p99);
    // under Poisson load, continuous batching answers sooner than static batches
    LoadRequest p = poisson(20, 1000, 512, 128);
    const LoadForecast pc = simulate_serving(gpu, model, p);
    p.scheduler = Scheduler::static_batch;
    const LoadForecast ps = simulate_serving(gpu, model, p);
    CHECK(pc.ttft_ms.p50 < ps.ttft_ms.p50);
    CHECK(pc.e2e_ms.p50 < ps.e2e_ms.p50);
  }

  TEST_CASE("clients of one fixed length run in step, and the forecast says so") {
    const GpuSpec& gpu = find_gpu("rtx-4090");
    const ModelConfig& model = find_model("mistral-7b");
    LoadRequest r = closed_loop(16, 300, 256, 100);
    r.max_batch_tokens = 8192;  // a whole wave's prompts in one step (vLLM's 4090 default: 2048)
    auto starting = [](const LoadForecast& f, std::string_view head) {
      int n = 0;
      for (const std::string& c : f.caveats) n += c.rfind(head, 0) == 0;
      return n;
    };
    auto in_step = [&](const LoadForecast& f) {
      CHECK(starting(f, "Arrivals:") == 1);  // one arrivals line, whichever kind
      CHECK(starting(f, "Arrivals: the trace") == 0);
      return starting(f, "Clients in step:");
    };
    const LoadForecast fixed = simulate_serving(gpu, model, r);
    CHECK(in_step(fixed) == 1);
    // every client's prompt waits for the wave's others: the median TTFT is the slowest's
    CHECK(fixed.ttft_ms.p50 > 0.9 * fixed.ttft_ms.p99);
    r.range_ratio = 0.5;  // lengths spread: the clients drift apart
    const LoadForecast spread = simulate_serving(gpu, model, r);
    CHECK(in_step(spread) == 0);
    CHECK(spread.ttft_ms.p50 < 0.5 * fixed.ttft_ms.p50);
    r.range_ratio = 0;
    r.concurrency = 300;  // offline: every request queued at once, no waves to warn of
    CHECK(in_step(simulate_serving(gpu, model, r)) == 0);
    CHECK(in_step(simulate_serving(gpu, model, poisson(5, 300, 256, 100))) == 0);
  }

  TEST_CASE("a full cache preempts and recomputes; every request still finishes") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama2-13b");
    LoadRequest r = closed_loop(200, 200, 2000, 2000);
    const LoadForecast f = simulate_serving(gpu, model, r);
    CHECK(f.preemptions > 0);
    CHECK(f.kv_peak_fraction <= 1.0);
    CHECK(f.kv_peak_fraction > 0.9);
    CHECK(f.kv_use.size() <= 200);
    CHECK(f.e2e_ms.p99 > 0);
    CHECK(std::isfinite(f.e2e_ms.p99));
  }

  TEST_CASE("the caveats say what the cache was sized from, and when its size decided the run") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama2-13b");
    auto said = [](const LoadForecast& f, std::string_view start) {
      for (const std::string& c : f.caveats)
        if (c.rfind(start, 0) == 0) return c;
      return std::string();
    };
    const LoadForecast full = simulate_serving(gpu, model, closed_loop(200, 200, 2000, 2000));
    // nvidia-smi's 81920 MiB, 26.0 GB of weights (13,015,864,320 parameters x 2 bytes)
    CHECK(said(full, "Scheduler:")
              .find("(the GPU's 85.9 GB as its driver reports them, at 0.90, "
                    "less weights 26.0 GB, activations ") != std::string::npos);
    CHECK(said(full, "KV cache: it filled (at its fullest 100 % of its blocks)") != "");
    const LoadForecast light = simulate_serving(gpu, model, poisson(1, 1, 512, 64));
    CHECK(light.kv_peak_fraction < 0.5);
    CHECK(said(light, "KV cache:") == "");
    CHECK(said(light, "Scheduler:") != "");
  }

  TEST_CASE("no-evict (TensorRT-LLM's default): whole requests reserved, never preempted") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama2-13b");
    LoadRequest r = closed_loop(200, 200, 2000, 2000);
    const LoadForecast vllm = simulate_serving(gpu, model, r);
    r.scheduler = Scheduler::no_evict;
    const LoadForecast trt = simulate_serving(gpu, model, r);
    CHECK(vllm.preemptions > 0);
    CHECK(trt.preemptions == 0);
    // at most as many sequences as the cache holds at prompt + output tokens each
    const double whole_blocks = std::ceil(4000.0 / double(r.block_tokens));
    CHECK(trt.mean_batch_seqs <= std::floor(double(trt.kv_blocks) / whole_blocks) + 1e-9);
    CHECK(trt.kv_peak_fraction <= 1.0);
    CHECK(trt.output_tokens_per_s > 0);
    CHECK(std::string(scheduler_name(Scheduler::no_evict)) == "no-evict");
    CHECK(parse_scheduler("no-evict") == Scheduler::no_evict);
    CHECK_THROWS_WITH_AS(parse_scheduler("evict"),
                         "'evict' is not a scheduler; allowed: continuous, no-evict, static",
                         Error);
  }

  TEST_CASE("sliding-window layers keep only their window's blocks: more sequences fit") {
    // gpt-oss-20b: 12 of its 24 layers slide over 128 tokens; at 8,000 + 2,000 tokens a
    // sequence holds about half the blocks of a full-length one
    const GpuSpec& gpu = find_gpu("h100-sxm");
    LoadRequest r = closed_loop(1000, 1000, 8000, 2000);
    r.scheduler = Scheduler::no_evict;
    const LoadForecast f = simulate_serving(gpu, find_model("gpt-oss-20b"), r);
    const double full_length = double(f.kv_blocks) * double(r.block_tokens) / 10000;
    CHECK(f.mean_batch_seqs > 1.5 * full_length);
    CHECK(f.mean_batch_seqs <= double(f.request.max_seqs));
    CHECK(f.kv_peak_fraction <= 1.0);
    bool said = false;
    for (const auto& c : f.caveats)
      said |= c.find(
                  "its 12 sliding-window layers keep only the 9 blocks their 128-token window "
                  "touches") != std::string::npos;
    CHECK(said);
    // a model without them: no more sequences than its blocks hold at full length
    const LoadForecast dense = simulate_serving(gpu, find_model("llama3-8b"), r);
    CHECK(dense.mean_batch_seqs <=
          std::floor(double(dense.kv_blocks) * double(r.block_tokens) / 10000) + 1e-9);
  }

  // vLLM's random dataset with --random-range-ratio: lengths uniform within +-r of the given
  // ones, from their own stream of the seed (the arrivals stay the seed's).
  TEST_CASE("a range ratio draws each request's lengths uniform around the given ones") {
    CHECK(length_range(512, 0.5) == std::pair<std::int64_t, std::int64_t>{256, 768});
    CHECK(length_range(3, 0.9) == std::pair<std::int64_t, std::int64_t>{1, 6});  // at least 1
    CHECK(length_range(128, 0) == std::pair<std::int64_t, std::int64_t>{128, 128});
    detail::SplitMix64 rng(3);
    std::int64_t lo = 1000, hi = 0;
    double sum = 0;
    for (int i = 0; i < 20000; ++i) {
      const std::int64_t x = detail::uniform_int(rng, 256, 768);
      lo = std::min(lo, x), hi = std::max(hi, x), sum += double(x);
    }
    CHECK(lo == 256);
    CHECK(hi == 768);
    CHECK(close(sum / 20000, 512, 0.01) == true);

    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    LoadRequest fixed = poisson(4, 200), varied = fixed;
    varied.range_ratio = 0.5;
    const LoadForecast a = simulate_serving(gpu, model, fixed);
    const LoadForecast b = simulate_serving(gpu, model, varied);
    const LoadForecast b2 = simulate_serving(gpu, model, varied);
    CHECK(b.e2e_ms.p99 == b2.e2e_ms.p99);  // deterministic
    CHECK(b.e2e_ms.p99 != a.e2e_ms.p99);   // the lengths differ
    // the mean lengths stay near the given ones: output tokens per request within a few %
    const double tokens_a = a.output_tokens_per_s / a.requests_per_s;
    const double tokens_b = b.output_tokens_per_s / b.requests_per_s;
    CHECK(tokens_a == doctest::Approx(128));
    CHECK(close(tokens_b, 128, 0.05) == true);
    // closed-loop clients of fixed lengths run in step; varied lengths drift apart and wait less
    LoadRequest clients = fixed;
    clients.arrivals = Arrivals::closed_loop;
    clients.concurrency = 16;
    LoadRequest clients_varied = clients;
    clients_varied.range_ratio = 0.5;
    CHECK(simulate_serving(gpu, model, clients_varied).ttft_ms.mean <
          0.5 * simulate_serving(gpu, model, clients).ttft_ms.mean);
    // refused: at or above 1, negative, beside a trace; named in the API
    for (double bad : {1.0, -0.1}) {
      LoadRequest r = fixed;
      r.range_ratio = bad;
      CHECK_THROWS_WITH_AS(simulate_serving(gpu, model, r), doctest::Contains("range_ratio"),
                           Error);
    }
    LoadRequest traced = fixed;
    traced.trace = parse_trace("arrival_ms,prompt,output\n0,10,5\n", "t.csv");
    traced.range_ratio = 0.2;
    CHECK_THROWS_WITH_AS(simulate_serving(gpu, model, traced),
                         doctest::Contains("a trace gives its own"), Error);
    const std::string base =
        R"({"gpu":"a100-80gb-sxm","model":"llama3-8b","prompt":512,"output":128,)";
    const auto j = nlohmann::json::parse(
        api::forecast_serving(base + R"("qps":2,"requests":20,"range_ratio":0.25})"));
    CHECK(j["range_ratio"] == 0.25);
    CHECK_THROWS_WITH_AS(api::forecast_serving(base + R"("range_ratio":0.25})"),
                         doctest::Contains("field 'range_ratio' is for a simulation under load"),
                         Error);
    // every field only a simulation reads is refused in a static request, not ignored
    for (const char* field : {R"("scheduler":"static")", R"("slo_tpot_ms":20)", R"("max_seqs":8)"})
      CHECK_THROWS_WITH_AS(api::forecast_serving(base + field + "}"),
                           doctest::Contains("is for a simulation under load"), Error);
  }

  TEST_CASE("goodput counts the requests meeting both SLOs") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    LoadRequest r = poisson(20, 1000);
    r.slo_ttft_ms = 1e6;
    r.slo_tpot_ms = 1e6;
    const LoadForecast loose = simulate_serving(gpu, model, r);
    CHECK(loose.slo_attainment == 1.0);
    CHECK(loose.goodput_requests_per_s == loose.requests_per_s);
    r.slo_ttft_ms = loose.ttft_ms.p50;
    const LoadForecast tight = simulate_serving(gpu, model, r);
    CHECK(tight.slo_attainment >= 0.49);
    CHECK(tight.slo_attainment <= 0.52);
  }

  TEST_CASE("traces: CSV and JSON, errors naming the file, line and field") {
    const auto t =
        parse_trace("# a trace\nprompt,arrival_ms,output\n100,5,10\n200,0,20\n", "t.csv");
    REQUIRE(t.size() == 2);
    CHECK(t[0].arrival_ms == 0);  // sorted by arrival
    CHECK(t[0].prompt == 200);
    const auto j = parse_trace(R"([{"arrival_ms":1,"prompt":3,"output":4}])", "t.json");
    CHECK(j[0].output == 4);
    CHECK_THROWS_WITH_AS(parse_trace("arrival_ms,prompt,output\n0,12x,3\n", "t.csv"),
                         "t.csv line 2: field 'prompt' is '12x'; expected an integer", Error);
    // a cell's text is echoed without its control characters (an ANSI escape would reach the
    // terminal) and cut at 40 bytes
    CHECK_THROWS_WITH_AS(parse_trace("arrival_ms,prompt,output\n0,\x1b[31m12,3\n", "t.csv"),
                         "t.csv line 2: field 'prompt' is '?[31m12'; expected an integer", Error);
    CHECK_THROWS_WITH_AS(
        parse_trace("arrival_ms,prompt,output\n0," + std::string(50, '9') + "x,3\n", "t.csv"),
        ("t.csv line 2: field 'prompt' is '" + std::string(40, '9') + "...'; expected an integer")
            .c_str(),
        Error);
    CHECK_THROWS_WITH_AS(parse_trace("arrival_ms,prompt,output\n0,1\n", "t.csv"),
                         "t.csv line 2: 2 fields; the header has 3", Error);
    CHECK_THROWS_WITH_AS(parse_trace("arrival,prompt,output\n", "t.csv"),
                         "t.csv line 1: the header must name the columns arrival_ms, prompt and "
                         "output",
                         Error);
    CHECK_THROWS_WITH_AS(parse_trace("arrival_ms,prompt,output\n-1,1,1\n", "t.csv"),
                         "t.csv line 2: field 'arrival_ms' is -1; allowed: 0 to 1e12 ms", Error);
    CHECK_THROWS_AS(parse_trace(R"([{"arrival_ms":1,"prompt":0,"output":4}])", "t.json"), Error);
    CHECK_THROWS_WITH_AS(parse_trace("arrival_ms,prompt,output\n", "t.csv"), "t.csv: no requests",
                         Error);
    LoadRequest r;
    r.arrivals = Arrivals::trace;
    r.trace = parse_trace("arrival_ms,prompt,output\n0,100,10\n50,300,20\n", "t.csv");
    const LoadForecast f = simulate_serving(find_gpu("h100-sxm"), find_model("llama3-8b"), r);
    CHECK(f.requests_per_s > 0);
  }

  TEST_CASE("the JSON API: load fields, the static response unchanged, bad input named") {
    const std::string base = R"("gpu":"h100-sxm","model":"llama3-8b","prompt":512,"output":64)";
    const auto j = nlohmann::json::parse(
        api::forecast_serving("{" + base + R"(,"qps":4,"requests":100,"seed":3})"));
    for (const char* k : {"ttft_ms", "tpot_ms", "e2e_ms"})
      for (const char* p : {"p50", "p90", "p99"}) CHECK(j[k][p].get<double>() > 0);
    CHECK(j["output_tokens_per_s"].get<double>() > 0);
    CHECK(j["requests_per_s"].get<double>() > 0);
    const auto s = nlohmann::json::parse(api::forecast_serving("{" + base + "}"));
    CHECK(s.contains("prefill_ms"));
    CHECK_FALSE(s.contains("ttft_ms"));
    CHECK_THROWS_WITH_AS(api::forecast_serving("{" + base + R"(,"qps":4,"concurrency":2})"),
                         "serving request: give 'qps' (Poisson arrivals) or 'concurrency' "
                         "(closed-loop clients), not both",
                         Error);
    CHECK_THROWS_WITH_AS(api::forecast_serving("{" + base + R"(,"qps":4})"),
                         "serving request: field 'requests' is missing (how many to simulate)",
                         Error);
    CHECK_THROWS_AS(api::forecast_serving("{" + base + R"(,"qps":-1,"requests":3})"), Error);
    CHECK_THROWS_AS(api::forecast_serving("{" + base + R"(,"qps":1,"requests":3,"batch":2})"),
                    Error);
    CHECK_THROWS_AS(
        api::forecast_serving("{" + base + R"(,"qps":1,"requests":3,"engine":"eager"})"), Error);
    CHECK_THROWS_WITH_AS(
        api::forecast_serving(R"({"gpu":"h100-sxm","model":"llama3-8b","trace":"x,y\n"})"),
        "trace line 1: the header must name the columns arrival_ms, prompt and output", Error);
  }

  TEST_CASE("limits not given are vLLM's own for the GPU, each apart") {
    // 70 GiB or more but an A100: 1024 sequences and 8192 tokens; any other GPU 256 and 2048
    for (const char* id : {"h100-sxm", "h100-pcie", "h200", "b200", "mi300x"}) {
      const detail::VllmBatchDefaults d = detail::vllm_batch_defaults(find_gpu(id));
      CHECK_MESSAGE((d.max_seqs == 1024 && d.max_batch_tokens == 8192), id);
    }
    for (const char* id : {"a100-80gb-sxm", "a100-40gb-sxm", "l40s", "rtx-4090"}) {
      const detail::VllmBatchDefaults d = detail::vllm_batch_defaults(find_gpu(id));
      CHECK_MESSAGE((d.max_seqs == 256 && d.max_batch_tokens == 2048), id);
    }
    // the simulation runs them and says so; a limit given keeps the other's default
    const ModelConfig& model = find_model("llama3-8b");
    LoadRequest r = poisson(4, 50, 512, 32);
    CHECK(simulate_serving(find_gpu("a100-80gb-sxm"), model, r).request.max_batch_tokens == 2048);
    r.max_seqs = 64;
    const LoadForecast h = simulate_serving(find_gpu("h100-sxm"), model, r);
    CHECK(h.request.max_seqs == 64);
    CHECK(h.request.max_batch_tokens == 8192);
    const nlohmann::json j = nlohmann::json::parse(api::forecast_serving(
        R"({"gpu":"rtx-4090","model":"llama3-8b","prompt":512,"output":32,"qps":2,"requests":20})"));
    CHECK(j["max_seqs"] == 256);
    CHECK(j["max_batch_tokens"] == 2048);
    CHECK(j["batch_limits"] == "fixed");
    // 1,000 clients on an H100 run past 256 sequences a step (the cache bounds them)
    const LoadForecast many =
        simulate_serving(find_gpu("h100-sxm"), model, closed_loop(1000, 2000, 512, 512));
    CHECK(many.mean_batch_seqs > 300);
  }

  TEST_CASE("limits: too long for the cache, too much work, a model that does not fit") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    CHECK_THROWS_WITH_AS(simulate_serving(gpu, find_model("llama3-8b"), poisson(1, 2, 1 << 30, 1)),
                         doctest::Contains("KV blocks; the cache holds"), Error);
    // refused before it runs: its least work, 1e6 requests of 10,001 sequence-steps in steps of
    // at most 256 sequences, 2 each (forecast/work_budget.hpp)
    LoadRequest many = poisson(1, 1000000, 8, 10000);
    many.max_seqs = 256;
    CHECK_THROWS_WITH_AS(simulate_serving(gpu, find_model("llama3-8b"), many),
                         doctest::Contains("serving simulation: about 7.81328e+07 steps of work"),
                         Error);
    // refused as it runs, having done no more than the budget: one request at a time (one each
    // 100 s), 1e5 x 101 steps of one sequence
    detail::reset_work_ledger();
    CHECK_THROWS_WITH_AS(
        simulate_serving(gpu, find_model("llama3-8b"), poisson(0.01, 100000, 8, 100)),
        doctest::Contains(("serving simulation: over the budget of " +
                           detail::format_g(detail::kMaxReplaySteps) +
                           " steps of work per request (about 1 s natively) as it ran")
                              .c_str()),
        Error);
    CHECK(detail::work_ledger().work_done <= detail::kMaxReplaySteps);
    CHECK_THROWS_WITH_AS(simulate_serving(gpu, find_model("llama2-70b"), poisson(1, 2)),
                         doctest::Contains("does not fit"), Error);
  }
}
