// Every numeric request field at its validator's maximum, alone and all together, answers (a
// forecast or a tilecast::Error) within 1 s of CPU natively (issue 33): the work budget
// (forecast/work_budget.hpp) refuses what would take longer, naming what to reduce.
#include <doctest/doctest.h>

#include <ctime>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

namespace {

using nlohmann::json;
using Call = std::function<std::string(std::string_view)>;

struct Outcome {
  double cpu_s = 0;
  bool answered = false;  // a forecast (else a tilecast::Error)
  std::string error;
};

Outcome run(const Call& call, const json& req) {
  Outcome o;
  const std::clock_t t0 = std::clock();
  try {
    call(req.dump());
    o.answered = true;
  } catch (const tilecast::Error& e) {
    o.error = e.what();
  }
  o.cpu_s = double(std::clock() - t0) / CLOCKS_PER_SEC;
  return o;
}

// Each field of `maxima` set alone on `base`, then all of them together: each within 1 s.
void each_alone_and_combined(const char* what, const Call& call, const json& base,
                             const json& maxima) {
  json all = base;
  for (const auto& item : maxima.items()) {
    const std::string field = item.key();
    const std::string value = item.value().dump();
    json req = base;
    req[field] = item.value();
    all[field] = item.value();
    const Outcome o = run(call, req);
    INFO(what << " " << field << " = " << value << ": " << o.error);
    CHECK(o.cpu_s <= 1.0);
  }
  const Outcome o = run(call, all);
  INFO(what << " every field at its maximum: " << o.error);
  CHECK(o.cpu_s <= 1.0);
}

json zoo_config(const std::string& id) {
  return json::parse(
      tilecast::test::read_file(tilecast::test::repo_dir() + "/model_zoo/" + id + ".json"));
}

// Model configs with one size at the config validator's maximum (100000 layers, 2^31 widths).
std::vector<json> extreme_models() {
  std::vector<json> out;
  const json gpt2 = zoo_config("gpt2");
  for (const char* f : {"n_layer", "n_embd", "n_head", "vocab_size", "n_inner", "n_positions"}) {
    json m = gpt2;
    m[f] = std::string(f) == "n_layer" ? json(100000) : json(2147483648LL);
    out.push_back(m);
  }
  json llama = zoo_config("llama3-8b");
  llama["num_hidden_layers"] = 100000;
  out.push_back(llama);
  json mixtral = zoo_config("mixtral-8x7b");
  mixtral["num_hidden_layers"] = 100000;
  out.push_back(mixtral);
  return out;
}

constexpr long long k31 = 1LL << 31;

}  // namespace

TEST_SUITE("work_budget") {
  TEST_CASE("model forecasts: every field at its maximum, alone and combined") {
    const json base = {{"gpu", "h100-sxm"}, {"model", "gpt2"}, {"batch", 1}, {"seq", 128}};
    each_alone_and_combined("model", tilecast::api::forecast_model, base,
                            {{"batch", k31}, {"seq", k31}});
    json decode = base;
    decode["mode"] = "decode";
    each_alone_and_combined("decode", tilecast::api::forecast_model, decode,
                            {{"batch", k31}, {"seq", k31}, {"context", k31}});
    json train = base;
    train["mode"] = "training";
    each_alone_and_combined("multi-GPU", tilecast::api::forecast_model, train,
                            {{"batch", k31},
                             {"seq", k31},
                             {"gpus", 65536},
                             {"dp", 65536},
                             {"tp", 65536},
                             {"pp", 65536},
                             {"microbatches", 65536},
                             {"zero", 3},
                             {"bucket_mb", 1e6}});
    // the largest pipeline that divides: gpt2's 12 layers, a batch of 65536
    each_alone_and_combined("pipeline", tilecast::api::forecast_model,
                            {{"gpu", "h100-sxm"},
                             {"model", "gpt2"},
                             {"batch", 65536},
                             {"seq", 1},
                             {"mode", "training"},
                             {"pp", 12}},
                            {{"microbatches", 65536}, {"recompute", "full"}});
    for (const json& m : extreme_models())
      for (const char* mode : {"inference", "training"}) {
        json req = base;
        req["model"] = m;
        req["mode"] = mode;
        each_alone_and_combined("extreme config", tilecast::api::forecast_model, req,
                                {{"batch", k31}, {"pp", 2}});
      }
  }

  TEST_CASE("serving forecasts: every field at its maximum, alone and combined") {
    const json base = {{"gpu", "h100-sxm"}, {"model", "gpt2"}, {"prompt", 128}, {"output", 16}};
    const json maxima = {{"prompt", k31}, {"output", k31}, {"batch", k31}, {"tp", 1024}};
    each_alone_and_combined("serving", tilecast::api::forecast_serving, base, maxima);
    for (const json& m : extreme_models()) {
      json req = base;
      req["model"] = m;
      each_alone_and_combined("serving extreme config", tilecast::api::forecast_serving, req,
                              {{"output", k31}, {"engine", "eager"}});
    }
  }

  TEST_CASE("plan searches: every field at its maximum, alone and combined") {
    const json base = {{"system", "dgx-a100"},
                       {"model", "gpt2"},
                       {"global_batch", 8},
                       {"seq", 128},
                       {"max_microbatches", 4}};
    each_alone_and_combined("plan", tilecast::api::plan_parallel, base,
                            {{"global_batch", k31},
                             {"seq", k31},
                             {"gpus", 65536},
                             {"max_microbatches", 4096},
                             {"top", 1000000}});
    // the reproducer: an inline GPT-2 of 100000 layers (was 104 s), and many GPUs of a network
    json deep = base;
    deep["model"] = extreme_models()[0];
    const Outcome o = run(tilecast::api::plan_parallel, deep);
    CHECK(o.cpu_s <= 1.0);
    CHECK(o.error.find("reduce the model's layers") != std::string::npos);
    each_alone_and_combined(
        "plan on many nodes", tilecast::api::plan_parallel,
        {{"system", "dgx-h100"}, {"model", "gpt2"}, {"global_batch", 65536}, {"seq", 128}},
        {{"gpus", 4096}, {"max_microbatches", 4096}});
  }

  TEST_CASE("kernels and collectives: every field at its maximum") {
    for (const char* op : {"linear", "bmm"})
      each_alone_and_combined("kernel", tilecast::api::forecast_kernel,
                              {{"gpu", "h100-sxm"}, {"op", op}, {"dims", {1, 64, 64, 64}}},
                              {{"dims", {k31, k31, k31, k31}}});
    each_alone_and_combined("kernel", tilecast::api::forecast_kernel,
                            {{"gpu", "h100-sxm"}, {"op", "softmax"}, {"dims", {64, 64}}},
                            {{"dims", {k31, k31}}});
    each_alone_and_combined(
        "collective", tilecast::api::forecast_collective,
        {{"system", "dgx-h100"}, {"collective", "all_reduce"}, {"bytes", 1024}, {"gpus", 8}},
        {{"bytes", 1e13}, {"gpus", 1 << 20}, {"gpus_per_node", 1024}});
  }
}
