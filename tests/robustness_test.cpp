// The defects fuzzing found (issue 33), each from its reproducer: sizes whose product wrapped
// an int to 0 before a division, a pipeline timeline and JSON growing with pp x micro-batches,
// a serving loop per output token, an error message that counted divisors up to the batch, and
// a nlohmann exception escaping for a field of the wrong type. Each must now answer (a forecast
// or a tilecast::Error naming the field) quickly and small.
#include <doctest/doctest.h>

#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "common/checked.hpp"
#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/error.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

namespace {

// CPU seconds (not wall: the CI machine is shared) a call takes.
template <class F>
double cpu_seconds(F&& f) {
  const std::clock_t t0 = std::clock();
  f();
  return double(std::clock() - t0) / CLOCKS_PER_SEC;
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("robustness") {
  TEST_CASE("tp x pp and dp x tp x pp are 64-bit products, refused with the fields named") {
    // the reproducer: tp 65536 x pp 65536 wrapped to 0 and `gpus % 0` trapped
    const std::string e = tilecast::test::error_of([] {
      tilecast::api::forecast_model(
          R"({"gpu":"h100-sxm","model":"gpt2","batch":1,"seq":1,"tp":65536,"pp":65536,"gpus":1})");
    });
    INFO(e);
    CHECK(has(e, "tp x pp = 4294967296"));
    const std::string e2 = tilecast::test::error_of([] {
      tilecast::api::forecast_model(
          R"({"gpu":"h100-sxm","model":"gpt2","batch":1,"seq":1,"mode":"training",)"
          R"("dp":65536,"tp":65536,"pp":65536})");
    });
    CHECK(has(e2, "= 281474976710656 GPUs; at most 65536"));
    tilecast::ParallelConfig c;
    c.dp = c.tp = c.pp = 2147483647;
    CHECK_THROWS_AS((void)c.gpus(), tilecast::Error);
    c.pp = 1;
    CHECK(c.gpus() == 2147483647LL * 2147483647LL);
  }

  TEST_CASE("a pipeline of 65536 micro-batches answers fast with its timeline decimated") {
    std::string out;
    const double s = cpu_seconds([&] {
      out = tilecast::api::forecast_model(
          R"({"gpu":"h100-sxm","model":"gpt2","batch":65536,"seq":1,"mode":"training",)"
          R"("pp":12,"microbatches":65536})");
    });
    CHECK(s < 1.0);
    CHECK(out.size() < 2'000'000);  // was 506 MB
    const auto j = nlohmann::json::parse(out);
    REQUIRE(j["stages"].size() == 12);
    std::size_t shown = 0;
    for (const auto& st : j["stages"]) {
      CHECK(st["compute_spans"] == 2 * 65536);  // every span is counted
      shown += st["compute"].size() + st["communication"].size();
    }
    CHECK(shown <= 4096 + 2 * 12);
    bool said = false;
    for (const auto& a : j["assumptions"]) said |= has(a.get<std::string>(), "first and last");
    CHECK(said);
  }

  TEST_CASE("a small pipeline keeps every span and no count fields") {
    const auto j = nlohmann::json::parse(tilecast::api::forecast_model(
        R"({"gpu":"h100-sxm","model":"gpt2","batch":8,"seq":128,"mode":"training",)"
        R"("pp":2,"microbatches":4})"));
    for (const auto& st : j["stages"]) {
      CHECK(st["compute"].size() == 8);
      CHECK_FALSE(st.contains("compute_spans"));
    }
  }

  TEST_CASE("serving 2^31 output tokens is a closed form, not a loop per token") {
    std::string out;
    const double s = cpu_seconds([&] {
      out = tilecast::api::forecast_serving(
          R"({"gpu":"h100-sxm","model":"gpt2","prompt":1,"output":2147483648})");
    });
    CHECK(s < 1.0);
    const auto j = nlohmann::json::parse(out);
    // the mean step lies between the first and the last sampled step
    const auto& at = j["decode_ms_at"];
    double lo = 1e300, hi = 0;
    for (const auto& [k, v] : at.items()) {
      lo = std::min(lo, v.get<double>());
      hi = std::max(hi, v.get<double>());
    }
    CHECK(j["decode_ms_per_token"].get<double>() >= lo);
    CHECK(j["decode_ms_per_token"].get<double>() <= hi);
  }

  TEST_CASE("the divisors in an error message are found in O(sqrt n)") {
    std::string e;
    const double s = cpu_seconds([&] {
      e = tilecast::test::error_of([] {
        tilecast::api::forecast_model(
            R"({"gpu":"h100-sxm","model":"gpt2","batch":2147483647,"seq":1,"mode":"training","dp":2})");
      });
    });
    CHECK(s < 0.5);                            // was 4.3 s
    CHECK(has(e, "valid dp: 1, 2147483647"));  // 2^31 - 1 is prime
    const std::string e2 = tilecast::test::error_of([] {
      tilecast::api::forecast_model(
          R"({"gpu":"h100-sxm","model":"gpt2","batch":36,"seq":1,"mode":"training","dp":5})");
    });
    CHECK(has(e2, "valid dp: 1, 2, 3, 4, 6, 9, 12, 18, 36"));
  }

  TEST_CASE("a field of the wrong type is a named error, never a JSON library exception") {
    for (const char* v : {"0", "[]", "{}", "true"}) {
      CAPTURE(v);
      const std::string e = tilecast::test::error_of([&] {
        tilecast::api::forecast_kernel(
            std::string(R"({"gpu":"h100-sxm","op":"add","dims":[10,10],"predictor":)") + v + "}");
      });
      CHECK(has(e, "field 'predictor' must be a string"));
      const std::string e2 = tilecast::test::error_of([&] {
        tilecast::api::forecast_kernel(
            std::string(R"({"gpu":"h100-sxm","op":"add","dims":[10,10],"precision":)") + v + "}");
      });
      CHECK(has(e2, "field 'precision' must be a string"));
    }
    // null is absent: the default predictor and precision
    const auto j = nlohmann::json::parse(tilecast::api::forecast_kernel(
        R"({"gpu":"h100-sxm","op":"add","dims":[10,10],"predictor":null,"precision":null})"));
    CHECK(j["predictor"] == "tilecast");
    CHECK(j["precision"] == "fp32");
  }

  // The megatron engine's sizes: the same products, each checked in 64 bits (was int, UB).
  TEST_CASE("megatron engine: tp x pp, pp x virtual_stages and widths are checked products") {
    const std::string e = tilecast::test::error_of([] {
      tilecast::api::forecast_model(
          R"({"gpu":"h100-sxm","model":"llama3-8b","batch":1,"seq":1,"mode":"training",)"
          R"("precision":"bf16","engine":"megatron","tp":65536,"pp":65536,"gpus":1})");
    });
    INFO(e);
    CHECK(has(e, "tp x pp x cp = 4294967296"));
    // a system large enough for 65536 GPUs: the chunk count check names the 64-bit product
    const std::string e2 = tilecast::test::error_of([] {
      tilecast::api::forecast_model(
          R"({"gpu":"h100-sxm","model":"llama3-8b","batch":1,"seq":1,"mode":"training",)"
          R"("precision":"bf16","engine":"megatron","pp":65536,"virtual_stages":65536,)"
          R"("system":{"id":"big","name":"big","gpu":"h100-sxm","gpus_per_node":8,)"
          R"("topology":"nvswitch","max_nodes":100000,"source":"test",)"
          R"("network":{"kind":"InfiniBand","nics_per_node":8,"nic_gbit_per_s":400}}})");
    });
    INFO(e2);
    CHECK(has(e2, "pp x virtual_stages = 4294967296"));
    // heads x head_dim past 2^62 (was a wrapped int64 width)
    const std::string e3 = tilecast::test::error_of([] {
      tilecast::api::forecast_model(
          R"({"gpu":"h100-sxm","batch":1,"seq":1,"mode":"training","precision":"bf16",)"
          R"("engine":"megatron","model":{"architectures":["LlamaForCausalLM"],)"
          R"("model_type":"llama","hidden_size":2147483648,"num_attention_heads":2147483648,)"
          R"("num_key_value_heads":2147483648,"head_dim":2147483648,"intermediate_size":64,)"
          R"("num_hidden_layers":1,"vocab_size":64,"max_position_embeddings":64}})");
    });
    CHECK(has(e3, "heads x head_dim"));
  }

  // A word field the megatron engine refuses names the field and the allowed words.
  TEST_CASE("megatron engine: unknown precision, recompute or attention words name the field") {
    for (const auto& [field, word] : {std::pair{"precision", "fp7"}, std::pair{"recompute", "half"},
                                      std::pair{"attention", "sparse"}}) {
      const std::string e = tilecast::test::error_of([&] {
        tilecast::api::forecast_model(
            std::string(R"({"gpu":"h100-sxm","model":"llama3-8b","batch":1,"seq":128,)") +
            R"("mode":"training","engine":"megatron",")" + field + R"(":")" + word + R"("})");
      });
      INFO(e);
      CHECK(has(e, std::string("field '") + field + "'"));
      CHECK(has(e, std::string("'") + word + "'"));
    }
  }

  // The serving simulator is under the one work budget (forecast/work_budget.hpp), estimated
  // before it runs; capacity plans before their first simulation.
  TEST_CASE(
      "serving simulations and capacity plans are refused by the work budget before running") {
    std::string e;
    const double s = cpu_seconds([&] {
      e = tilecast::test::error_of([] {
        tilecast::api::forecast_serving(
            R"({"gpu":"h100-sxm","model":"gpt2","prompt":1,"output":2147483648,"qps":1,)"
            R"("requests":1000000})");
      });
    });
    CHECK(s < 0.5);
    CHECK(has(e, "serving simulation: about"));
    CHECK(has(e, "over the budget"));
    const std::string e2 = tilecast::test::error_of([] {
      tilecast::api::plan_capacity(
          R"({"gpu":["h100-sxm","a100-80gb-sxm"],"model":"llama3-8b","qps":20,"slo_ttft_ms":500,)"
          R"("slo_tpot_ms":30,"prompt":512,"output":4096,"requests":1000000,"max_gpus":1024})");
    });
    CHECK(has(e2, "capacity plan: about"));
    CHECK(has(e2, "reduce requests, output tokens, max_gpus or the GPUs named"));
  }

  // Sizes of a system built in C++ (no parser limits): GPUs per node x nodes is 64-bit (was an
  // int product that wrapped, refusing every GPU count); a double turned into a count is 0 for
  // NaN and capped (casting NaN to an integer is undefined).
  TEST_CASE("system room and counts from doubles are checked") {
    tilecast::SystemSpec big = tilecast::find_system("dgx-h100");
    big.gpus_per_node = 1 << 16;
    big.max_nodes = 1 << 16;
    tilecast::CollectiveRequest q;
    q.bytes = 1 << 20;
    q.gpus = 8;
    q.gpus_per_node = 8;
    CHECK(tilecast::forecast_collective(big, q).time_ms > 0);
    CHECK(tilecast::detail::count_of(std::nan(""), 1e15) == 0);
    CHECK(tilecast::detail::count_of(-3.5, 1e15) == 0);
    CHECK(tilecast::detail::count_of(7.9, 1e15) == 7);
    CHECK(tilecast::detail::count_of(1e300, 1e15) == 1000000000000000LL);
  }
}
