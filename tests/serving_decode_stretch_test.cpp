// The serving engine's decode stretches (serve/simulator/engine.cpp): a run with them takes the
// same steps, at the same times, as the step-by-step loop, bit for bit, in every situation that
// ends a stretch (arrivals, completions, a queue whose front fits or not, KV blocks running out
// and preemption, the token budget, a sliding window's sums and its layers' blocks, a closed
// loop's clients), and the stretches do run.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "serve/simulator/engine.hpp"
#include "serve/simulator/rng.hpp"
#include "serve/simulator/step_cost.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

struct StretchCase {
  const char* gpu;
  const char* model;
  std::int64_t requests, prompt, output;
  double range = 0;  // lengths uniform within +-range of prompt and output
  double qps = 0;    // 0: a closed loop of `clients`
  std::int64_t clients = 0;
  detail::EngineLimits limits;
};

std::vector<detail::SimRequest> requests_of(const StretchCase& c) {
  detail::SplitMix64 rng(7);
  std::vector<detail::SimRequest> reqs(std::size_t(c.requests));
  double t = 0;
  for (auto& r : reqs) {
    auto around = [&](std::int64_t x) {
      const auto d = std::int64_t(double(x) * c.range);
      return d > 0 ? detail::uniform_int(rng, x - d, x + d) : x;
    };
    r.prompt = around(c.prompt);
    r.output = around(c.output);
    r.host_ms = 0.05;
    if (c.qps > 0) {
      r.arrival_ms = t;
      t += detail::exponential(rng, c.qps / 1000);
    }
  }
  return reqs;
}

// The same case run with and without stretches: every step's time and cache use, every
// request's first token and finish, equal as doubles. `stretched`: the case is built for
// stretches, so they must run and save work.
detail::EngineRun same_run(const StretchCase& c, bool stretched = true) {
  const GpuSpec& gpu = find_gpu(c.gpu);
  const ModelConfig& model = find_model(c.model);
  ServingRequest s;
  s.prompt = c.prompt;
  s.output = c.output;
  detail::EngineLimits on = c.limits, off = c.limits;
  on.clients = off.clients = c.clients;
  on.decode_stretches = true;
  off.decode_stretches = false;
  std::vector<detail::SimRequest> a = requests_of(c), b = requests_of(c);
  detail::StepCost cost_a(gpu, model, s), cost_b(gpu, model, s);
  // each run a request of its own: its own meter
  auto run = [](std::vector<detail::SimRequest>& reqs, const detail::EngineLimits& l,
                detail::StepCost& cost, double& work) {
    detail::WorkMeter meter("test run", "nothing");
    detail::EngineRun r = detail::run_engine(reqs, l, cost, meter);
    work = meter.spent();
    return r;
  };
  double work_a = 0, work_b = 0;
  const detail::EngineRun ra = run(a, on, cost_a, work_a);
  const detail::EngineRun rb = run(b, off, cost_b, work_b);
  if (stretched) {
    CHECK(work_a < work_b);  // the stretches' steps counted once for their batch
    CHECK(ra.stretch_steps > 0);
  }
  CHECK(rb.stretch_steps == 0);
  CHECK(ra.steps == rb.steps);
  CHECK(ra.preemptions == rb.preemptions);
  CHECK(ra.sequence_steps == rb.sequence_steps);
  CHECK(ra.sum_seqs == rb.sum_seqs);
  CHECK(ra.sum_tokens == rb.sum_tokens);
  REQUIRE(ra.kv_use.size() == rb.kv_use.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < ra.kv_use.size(); ++i) differ += ra.kv_use[i] != rb.kv_use[i];
  CHECK(differ == 0);
  differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    differ += a[i].first_ms != b[i].first_ms || a[i].finish_ms != b[i].finish_ms ||
              a[i].arrival_ms != b[i].arrival_ms;
  CHECK(differ == 0);
  // every request's first token after its arrival, its finish not before its first token
  differ = 0;
  for (const auto& r : a) differ += !(r.first_ms >= r.arrival_ms && r.finish_ms >= r.first_ms);
  CHECK(differ == 0);
  return ra;
}

}  // namespace

TEST_SUITE("serving_decode_stretch") {
  TEST_CASE("Poisson arrivals, uneven lengths: arrivals and completions end stretches") {
    same_run({.gpu = "h100-sxm",
              .model = "llama3-8b",
              .requests = 600,
              .prompt = 512,
              .output = 256,
              .range = 0.5,
              .qps = 30,
              .limits = {.scheduler = Scheduler::continuous, .blocks = 40000}});
  }
  TEST_CASE("an offline run at the sequence limit, the queue waiting behind it") {
    same_run({.gpu = "h100-sxm",
              .model = "llama3-8b",
              .requests = 1000,
              .prompt = 128,
              .output = 400,
              .clients = 1000,
              .limits = {.scheduler = Scheduler::continuous, .max_seqs = 128, .blocks = 100000}});
  }
  TEST_CASE("a cache that runs out: blocks taken mid-stretch, preemption and recomputation") {
    const detail::EngineRun run =
        same_run({.gpu = "a100-80gb-sxm",
                  .model = "llama2-13b",
                  .requests = 300,
                  .prompt = 600,
                  .output = 700,
                  .range = 0.3,
                  .clients = 200,
                  .limits = {.scheduler = Scheduler::continuous, .blocks = 6000}});
    CHECK(run.preemptions > 0);
  }
  TEST_CASE("no-evict: whole requests reserved, the queue's front waiting for blocks") {
    same_run({.gpu = "a100-80gb-sxm",
              .model = "llama2-13b",
              .requests = 300,
              .prompt = 900,
              .output = 500,
              .range = 0.2,
              .clients = 300,
              .limits = {.scheduler = Scheduler::no_evict, .blocks = 9000}});
  }
  TEST_CASE("no-evict with sliding-window layers: their window's blocks reserved") {
    same_run({.gpu = "h100-sxm",
              .model = "gpt-oss-20b",
              .requests = 300,
              .prompt = 700,
              .output = 400,
              .range = 0.3,
              .clients = 300,
              .limits = {.scheduler = Scheduler::no_evict,
                         .blocks = 60000,
                         .global_units = 12,
                         .window_units = 12,
                         .window_blocks = 9}});
  }
  TEST_CASE("sliding-window layers' blocks: taken below the window, a cache that runs out") {
    // gpt-oss-20b's 12 full and 12 windowed layers, a window of 128 tokens (9 blocks of 16):
    // prompts below and across it, so stretches end as requests reach it; few enough blocks
    // that requests are preempted and recomputed
    const detail::EngineRun run = same_run({.gpu = "h100-sxm",
                                            .model = "gpt-oss-20b",
                                            .requests = 300,
                                            .prompt = 100,
                                            .output = 500,
                                            .range = 0.5,
                                            .clients = 200,
                                            .limits = {.scheduler = Scheduler::continuous,
                                                       .blocks = 12000,
                                                       .global_units = 12,
                                                       .window_units = 12,
                                                       .window_blocks = 9}});
    CHECK(run.preemptions > 0);
    same_run({.gpu = "h100-sxm",
              .model = "gpt-oss-20b",
              .requests = 400,
              .prompt = 20,
              .output = 300,
              .range = 0.9,
              .qps = 60,
              .limits = {.scheduler = Scheduler::continuous,
                         .blocks = 200000,
                         .global_units = 12,
                         .window_units = 12,
                         .window_blocks = 9}});
  }
  TEST_CASE("a prompt's last token computed alone is its prefill, not a decode step") {
    // a budget of one token a step: every prompt's last token is a step of one token with
    // nothing else left to compute, which a stretch must not take for a decode (it would sample
    // the first token without timing it); found by the structured fuzz harness
    same_run(
        {.gpu = "b200",
         .model = "gpt3-6.7b",
         .requests = 40,
         .prompt = 40,
         .output = 20,
         .range = 0.9,
         .qps = 5,
         .limits = {.scheduler = Scheduler::continuous, .max_batch_tokens = 1, .blocks = 100000}});
  }
  TEST_CASE("small random cases: tiny budgets, sequence limits and caches, 1-token prompts") {
    // seeded, so the same cases every run: prompts of 1 to 39 tokens, outputs of 1 to 19, token
    // budgets of 1 to 48, 1 to 6 sequences, caches from a few blocks, open and closed loops
    detail::SplitMix64 rng(54);
    std::int64_t stretch_steps = 0;
    for (int i = 0; i < 120; ++i) {
      CAPTURE(i);
      const bool window = i % 4 == 3;  // gpt-oss-20b's sliding-window layers
      StretchCase c{
          .gpu = "h100-sxm",
          .model = window ? "gpt-oss-20b" : "llama3-8b",
          .requests = detail::uniform_int(rng, 1, 30),
          .prompt = 20,
          .output = 10,
          .range = 0.95,
          .limits = {.scheduler = i % 5 == 4 ? Scheduler::no_evict : Scheduler::continuous,
                     .max_batch_tokens = detail::uniform_int(rng, 1, 48),
                     .max_seqs = detail::uniform_int(rng, 1, 6),
                     .block_tokens = 4}};
      if (i % 2 == 0)
        c.qps = double(detail::uniform_int(rng, 1, 400));
      else
        c.clients = detail::uniform_int(rng, 1, 8);
      // room for the longest request (39 + 19 tokens, 15 blocks of 4) and at most a few more
      const std::int64_t least = 15;
      if (window) {
        c.limits.global_units = 12;
        c.limits.window_units = 12;
        c.limits.window_blocks = 32;  // a window of 128 tokens: above any request here
        c.limits.blocks = 24 * least * detail::uniform_int(rng, 1, 4);
      } else {
        c.limits.blocks = least * detail::uniform_int(rng, 1, 4);
      }
      stretch_steps += same_run(c, false).stretch_steps;
    }
    CHECK(stretch_steps > 0);
  }
  TEST_CASE("static batches: a request is done when its last token is, one token included") {
    // one batch of three (outputs 1, 2 and 5): each finishes at its own last token; the batch
    // runs on until the longest is done
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama3-8b");
    ServingRequest s;
    s.prompt = 16;
    s.output = 5;
    std::vector<detail::SimRequest> reqs(3);
    const std::int64_t outputs[] = {1, 2, 5};
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      reqs[i].prompt = 16;
      reqs[i].output = outputs[i];
    }
    detail::StepCost cost(gpu, model, s);
    detail::WorkMeter meter("test run", "nothing");
    const detail::EngineRun run = detail::run_engine(
        reqs, {.scheduler = Scheduler::static_batch, .blocks = 1000}, cost, meter);
    CHECK(run.steps == 5);  // the prefill, then 4 decode steps for the longest
    for (const auto& r : reqs) CHECK(r.first_ms == reqs[0].first_ms);
    CHECK(reqs[0].finish_ms == reqs[0].first_ms);
    CHECK(reqs[0].finish_ms < reqs[1].finish_ms);
    CHECK(reqs[1].finish_ms < reqs[2].finish_ms);
  }
  TEST_CASE("a token budget the batch fills: no room to join") {
    same_run({.gpu = "h100-sxm",
              .model = "llama3-8b",
              .requests = 200,
              .prompt = 300,
              .output = 300,
              .clients = 64,
              .limits = {.scheduler = Scheduler::continuous,
                         .max_batch_tokens = 64,
                         .max_seqs = 256,
                         .blocks = 100000}});
  }
  TEST_CASE("sliding windows: sequences crossing the window mid-stretch (gpt-oss, Gemma 2)") {
    same_run({.gpu = "h100-sxm",
              .model = "gpt-oss-20b",
              .requests = 200,
              .prompt = 60,
              .output = 300,
              .range = 0.5,
              .qps = 40,
              .limits = {.scheduler = Scheduler::continuous, .blocks = 40000}});
    same_run({.gpu = "h100-sxm",
              .model = "gemma2-9b",
              .requests = 100,
              .prompt = 3900,
              .output = 400,
              .range = 0.1,
              .clients = 32,
              .limits = {.scheduler = Scheduler::continuous, .blocks = 40000}});
  }
}
