// A serving engine's costs beyond its kernels (issue 30 item 3; core/data/engines/serving.json,
// docs/serving.md "Fixed costs"): the sampler's read of the logits every step, the prompt's
// tokenisation before a served request is scheduled, the host's work (an assumption: hidden).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "forecast/kernel_times.hpp"
#include "parallel/parallel.hpp"
#include "serve/fixed_costs.hpp"
#include "serve/quantize.hpp"
#include "serve/serving_caveats.hpp"
#include "serve/simulator/step_cost.hpp"
#include "serve/step.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving.hpp"
#include "tilecast/serving_load.hpp"

using namespace tilecast;

TEST_SUITE("serving_fixed_costs") {
  TEST_CASE("the engine data: sourced sampler and tokeniser, host work assumed hidden") {
    const detail::ServingFixedCosts& c = detail::serving_fixed_costs();
    CHECK(c.sampling_logits_bytes == 4);
    CHECK(c.sampling_passes == 1);
    CHECK(c.tokenize_tokens_per_s == 500000);
    CHECK(c.host_ms_per_step == 0);
    CHECK(c.host_ms_per_request == 0);
  }

  TEST_CASE("sampling: one FP32 read of every sampled sequence's logits row per step") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const double bw = detail::streaming_bw_gbps(gpu, Predictor::tilecast);
    const double one = detail::sampling_step_ms(gpu, bw, 1, 32000);
    CHECK(one == doctest::Approx(32000.0 * 4 / (bw * 1e9) * 1e3).epsilon(1e-12));
    CHECK(detail::sampling_step_ms(gpu, bw, 256, 32000) ==
          doctest::Approx(256 * one).epsilon(1e-12));
    // at the datasheet bandwidth (the roofline predictor's) it is faster
    CHECK(detail::sampling_step_ms(gpu, gpu.mem_bw_gbps, 256, 32000) <
          detail::sampling_step_ms(gpu, bw, 256, 32000));
    // a large batch's step pays tens of microseconds, a single sequence well under one
    CHECK(detail::sampling_step_ms(gpu, bw, 256, 32000) > 0.01);
    CHECK(one < 0.001);
  }

  TEST_CASE("the static forecast and the simulator's steps include the sampler") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama2-7b");
    ServingRequest s;
    s.prompt = 128;
    s.output = 2;
    s.batch = 256;
    const ServingForecast f = forecast_serving(gpu, model, s);
    const double sampling = detail::sampling_step_ms(
        gpu, detail::streaming_bw_gbps(gpu, s.predictor), 256, model.vocab_size);
    // the kernels of the decode step at 128 cached tokens, without the sampler
    detail::StepClock clock(gpu, s.predictor, s.engine);
    const double kernels = clock.forward_ms(detail::serving_graph(
        gpu, detail::shard_model(model, 1), make_workload(Mode::decode, 256, 1, 128), Engine::fused,
        detail::serving_types(gpu, s)));
    REQUIRE(f.decode_ms_at.front().first == 128);
    CHECK(f.decode_ms_at.front().second == doctest::Approx(kernels + sampling).epsilon(1e-12));
    // the simulator's step of the same shape is the same time
    detail::StepCost cost(gpu, model, s);
    detail::AttentionLoad decode;
    for (int i = 0; i < 256; ++i) decode.add(128, 1, 0);
    CHECK(cost.step_ms(256, 256, decode) == doctest::Approx(kernels + sampling).epsilon(1e-9));
  }

  TEST_CASE("a served request is tokenised before it is scheduled: TTFT grows by prompt / rate") {
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const ModelConfig& model = find_model("llama2-7b");
    LoadRequest r;
    r.serving.prompt = 2048;
    r.serving.output = 4;
    r.arrivals = Arrivals::poisson;
    r.qps = 0.01;  // one request at a time
    r.requests = 3;
    const LoadForecast load = simulate_serving(gpu, model, r);
    const ServingForecast alone = forecast_serving(gpu, model, r.serving);
    CHECK(detail::request_host_ms(2048) == doctest::Approx(2048.0 / 500000 * 1e3));
    CHECK(load.ttft_ms.p50 ==
          doctest::Approx(alone.prefill_ms + detail::request_host_ms(2048)).epsilon(1e-9));
  }

  TEST_CASE("a serving forecast says how the published runs of its GPU's architecture came out") {
    const detail::ServingFixedCosts& c = detail::serving_fixed_costs();
    auto note_of = [&](const std::string& arch) {
      for (const auto& [a, note] : c.checks_by_architecture)
        if (a == arch) return note;
      FAIL("no note for " << arch);
      return std::string();
    };
    REQUIRE(c.checks_by_architecture.size() == 2);
    const std::string blackwell = note_of("Blackwell"), hopper = note_of("Hopper");
    // the note's figures are held to docs/serving-checks.md by web/tests/serving_checks.test.mjs
    CHECK(blackwell.find("are forecast faster than measured: the dense Llama models about") !=
          std::string::npos);
    CHECK(hopper.find("the H200's throughput lead over the H100") != std::string::npos);
    const ModelConfig& model = find_model("llama3-8b");
    auto says = [&](const std::vector<std::string>& caveats, const std::string& note) {
      int n = 0;
      for (const auto& line : caveats) n += line == note;
      return n;
    };
    ServingRequest s;
    s.prompt = 128;
    s.output = 4;
    s.batch = 8;
    LoadRequest r;
    r.serving = s;
    r.arrivals = Arrivals::poisson;
    r.qps = 1;
    r.requests = 4;
    for (const auto& [id, note] : {std::pair{"b200", blackwell}, std::pair{"gb200", blackwell},
                                   std::pair{"rtx-5090", blackwell}, std::pair{"h100-sxm", hopper},
                                   std::pair{"h200", hopper}}) {
      CAPTURE(id);
      CHECK(says(forecast_serving(find_gpu(id), model, s).caveats, note) == 1);  // BF16
      CHECK(says(simulate_serving(find_gpu(id), model, r).caveats, note) == 1);
    }
    for (const char* id : {"a100-80gb-sxm", "mi300x"}) {
      CAPTURE(id);
      const auto caveats = forecast_serving(find_gpu(id), model, s).caveats;
      CHECK(says(caveats, blackwell) + says(caveats, hopper) == 0);
    }
    // NVFP4: its transfer note says it; the architecture's note is not repeated
    s.dtype = DataType::fp4;
    CHECK(says(forecast_serving(find_gpu("b200"), model, s).caveats, blackwell) == 0);
    s.dtype = DataType::fp8;  // another quantized precision keeps it
    CHECK(says(forecast_serving(find_gpu("b200"), model, s).caveats, blackwell) == 1);
    CHECK(says(forecast_serving(find_gpu("h100-sxm"), model, s).caveats, hopper) == 1);
  }
  TEST_CASE("a static forecast of a short prompt says how published short-prompt TTFTs came out") {
    const GpuSpec& gpu = find_gpu("h100-sxm");
    const ModelConfig& model = find_model("llama2-7b");
    const std::string& note = detail::serving_fixed_costs().checks_short_prompt;
    REQUIRE(!note.empty());
    auto has_note = [&](std::int64_t prompt) {
      ServingRequest s;
      s.prompt = prompt;
      s.output = 4;
      const std::vector<std::string> c = forecast_serving(gpu, model, s).caveats;
      return std::find(c.begin(), c.end(), note) != c.end();
    };
    CHECK(has_note(128));
    CHECK(has_note(detail::kShortPromptTokens));
    CHECK_FALSE(has_note(detail::kShortPromptTokens + 1));
    CHECK_FALSE(has_note(2048));
  }
}
