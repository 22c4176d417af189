// Workloads: the mode words (one parser for the CLI and the API), the query and
// key lengths each mode implies, and the graphs of a prefill (a prompt into an
// empty KV cache) and a decode step (one token against a cache).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {

// Forward ops whose name starts with `prefix`, repeats counted, and their listed elements.
struct Found {
  std::int64_t count = 0;
  double elements = 0;
};
Found find_ops(const OpGraph& g, const std::string& prefix) {
  Found f;
  for (const auto& s : g.sections)
    for (const auto& o : s.ops)
      if (o.name.rfind(prefix, 0) == 0) {
        f.count += s.count;
        f.elements += double(s.count) * o.mem_elements;
      }
  return f;
}

nlohmann::json api_forecast(nlohmann::json req) {
  req["gpu"] = "a100-80gb-pcie";
  req["predictor"] = "roofline";
  return nlohmann::json::parse(api::forecast_model(req.dump()));
}

}  // namespace

TEST_SUITE("workload") {
  TEST_CASE("mode words: one parser, every spelling, a clear error") {
    CHECK(parse_mode("training") == Mode::training);
    CHECK(parse_mode("train") == Mode::training);
    CHECK(parse_mode("inference") == Mode::inference);
    CHECK(parse_mode("inf") == Mode::inference);
    CHECK(parse_mode("prefill") == Mode::prefill);
    CHECK(parse_mode("decode") == Mode::decode);
    for (Mode m : {Mode::training, Mode::inference, Mode::prefill, Mode::decode})
      CHECK(parse_mode(mode_name(m)) == m);
    try {
      parse_mode("serving");
      FAIL("expected an error");
    } catch (const Error& e) {
      const std::string msg = e.what();
      for (const char* w :
           {"'serving'", "training", "train", "inference", "inf", "prefill", "decode"})
        CHECK_MESSAGE(msg.find(w) != std::string::npos, w);
    }
  }

  TEST_CASE("query and key lengths per mode") {
    const Workload t = make_workload(Mode::training, 2, 512);
    CHECK(t.training());
    CHECK(t.query_len == 512);
    CHECK(t.context_len == 512);
    const Workload p = make_workload(Mode::prefill, 2, 512);
    CHECK(!p.training());
    CHECK(p.query_len == 512);
    CHECK(p.context_len == 512);
    const Workload d = make_workload(Mode::decode, 2, 512);  // cache = seq by default
    CHECK(d.query_len == 1);
    CHECK(d.context_len == 513);
    CHECK(make_workload(Mode::decode, 2, 512, 100).context_len == 101);
  }

  TEST_CASE("decode: one query against the cache, the cache appended, no backward") {
    const ModelConfig& m = find_model("gpt2");  // 12 layers, 12 heads of 64
    const std::int64_t B = 4, C = 1000;
    const OpGraph g = build_op_graph(m, make_workload(Mode::decode, B, 64, C));
    std::multiset<std::string> bmm;
    double lm_rows = 0;
    for (const auto& s : g.sections)
      for (const auto& o : s.ops) {
        CHECK(o.phase == Phase::forward);
        if (o.kernel.op == Op::bmm) bmm.insert(dims_to_string(o.kernel));
        if (o.name == "lm_head") lm_rows = double(o.kernel.dims[1]);
      }
    CHECK(bmm == std::multiset<std::string>{"48,1,64,1001", "48,1,1001,64"});
    CHECK(lm_rows == B);  // logits of the new token only
    // torch.cat of the cache and the new token, for k and v, in every layer:
    // reads 1001 rows of every head and writes them again
    const Found cat = find_ops(g, "kv cache");
    CHECK(cat.count == 2 * 12);
    CHECK(cat.elements == 2 * 12 * 2.0 * B * 12 * 1001 * 64);
    // one row of the position table
    const Found wpe = find_ops(g, "wpe");
    CHECK(wpe.elements == 1 + 1 * 768);
  }

  TEST_CASE("prefill: the inference pass plus the K/V cache writes") {
    for (const char* id : {"gpt2", "opt-1.3b", "llama3-8b"}) {
      CAPTURE(id);
      const ModelConfig& m = find_model(id);
      const OpGraph inf = build_op_graph(m, make_workload(Mode::inference, 2, 128));
      const OpGraph pre = build_op_graph(m, make_workload(Mode::prefill, 2, 128));
      CHECK(graph_kernel_count(pre) == graph_kernel_count(inf) + 2 * m.num_layers);
      CHECK(graph_flops(pre, Phase::forward) == graph_flops(inf, Phase::forward));
      const Found writes = find_ops(pre, "kv cache");
      CHECK(writes.count == 2 * m.num_layers);
      CHECK(writes.elements ==
            double(m.num_layers) * 2 * 2.0 * 2 * m.num_kv_heads * 128 * double(m.head_dim));
      CHECK(find_ops(inf, "kv cache").count == 0);
    }
  }

  TEST_CASE("grouped-query decode: K/V repeated over the whole context, rotary on one token") {
    const ModelConfig& m = find_model("llama3-8b");  // 32 heads, 8 KV heads of 128
    const OpGraph g = build_op_graph(m, make_workload(Mode::decode, 1, 1, 4095));
    const Found repeat = find_ops(g, "repeat_kv");
    CHECK(repeat.elements == 2.0 * 32 * (8 * 4096 * 128.0 + 32 * 4096 * 128.0));
    for (const auto& o : g.sections[1].ops)
      if (o.name == "rotary (q)" && o.kernel.op == Op::add) CHECK(o.kernel.dims[0] == 32);
  }

  TEST_CASE("prefill and decode need a decoder-only model") {
    for (const char* id : {"bert-base", "switch-xl-4"})
      for (Mode mode : {Mode::prefill, Mode::decode}) {
        CAPTURE(id);
        const ModelConfig& m = find_model(id);
        const std::string err = test::graph_error(m, make_workload(mode, 1, 128));
        CHECK(err.find(std::string(mode_name(mode))) != std::string::npos);
        CHECK(err.find(std::string(architecture_name(m.architecture))) != std::string::npos);
      }
  }

  TEST_CASE("decode costs grow with the cache and stay far below a full pass") {
    const GpuSpec& gpu = find_gpu("a100-80gb-pcie");
    const ModelConfig& m = find_model("llama2-7b");
    const auto at = [&](Mode mode, std::int64_t cache) {
      return forecast_model(gpu, m, make_workload(mode, 8, 2048, cache), Predictor::tilecast);
    };
    const ModelForecast short_cache = at(Mode::decode, 128), long_cache = at(Mode::decode, 4096);
    CHECK(long_cache.latency_ms > short_cache.latency_ms);
    CHECK(short_cache.backward_ms == 0);
    CHECK(short_cache.tokens_per_s == doctest::Approx(8 / (short_cache.latency_ms / 1000)));
    const ModelForecast prefill = at(Mode::prefill, 0);
    CHECK(prefill.latency_ms > 20 * long_cache.latency_ms);
    CHECK(prefill.latency_ms > at(Mode::inference, 0).latency_ms);  // + the cache writes
  }

  TEST_CASE("the API takes the same words and reports the workload") {
    const auto d = api_forecast(
        {{"model", "gpt2"}, {"batch", 4}, {"seq", 256}, {"mode", "decode"}, {"context", 1000}});
    CHECK(d["mode"] == "decode");
    CHECK(d["seq"] == 1000);  // decode: the cache length
    CHECK(d["workload"]["query_len"] == 1);
    CHECK(d["workload"]["context_len"] == 1001);
    CHECK(d["workload"]["tokens_per_s_counts"].get<std::string>().find("generated") !=
          std::string::npos);
    CHECK(d["tokens_per_s"].get<double>() ==
          doctest::Approx(4 / (d["latency_ms"].get<double>() / 1000)));
    const auto p =
        api_forecast({{"model", "gpt2"}, {"batch", 4}, {"seq", 256}, {"mode", "prefill"}});
    CHECK(p["workload"]["query_len"] == 256);
    CHECK(p["workload"]["tokens_per_s_counts"].get<std::string>().find("prompt") !=
          std::string::npos);
    const auto t = api_forecast({{"model", "gpt2"}, {"batch", 1}, {"seq", 64}, {"mode", "train"}});
    CHECK(t["mode"] == "training");
    const auto i = api_forecast({{"model", "gpt2"}, {"batch", 1}, {"seq", 64}, {"mode", "inf"}});
    CHECK(i["mode"] == "inference");
    const auto api_error = [](nlohmann::json req) -> std::string {
      try {
        api_forecast(std::move(req));
      } catch (const Error& e) {
        return e.what();
      }
      return "";
    };
    CHECK(api_error({{"model", "gpt2"}, {"batch", 1}, {"seq", 64}, {"mode", "serve"}})
              .find("prefill, decode") != std::string::npos);
    CHECK(api_error({{"model", "gpt2"}, {"batch", 1}, {"seq", 64}, {"context", 9}})
              .find("'context'") != std::string::npos);
    CHECK(api_error({{"model", "bert-base"}, {"batch", 1}, {"seq", 64}, {"mode", "decode"}})
              .find("bert") != std::string::npos);
  }
}
