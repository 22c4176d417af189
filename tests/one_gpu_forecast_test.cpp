// api::forecast_model_one_gpu (what the WebAssembly build's split follows, docs/web.md "The
// deferred part"): forecast_model's answer byte for byte on one GPU, and a refusal naming
// forecast_model for the scale-out requests, whose code it never reaches.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

using namespace tilecast;

TEST_SUITE("one-GPU forecast") {
  TEST_CASE("one GPU: the same text as forecast_model, errors included") {
    const std::vector<std::string> requests = {
        R"({"gpu":"a100-80gb-sxm","model":"gpt2-large","batch":4,"seq":1024,"mode":"training"})",
        R"({"gpu":"h100-sxm","model":"llama3-8b","batch":8,"seq":2048,"precision":"bf16",)"
        R"("engine":"compiled","price_per_gpu_hour":2.5,"tokens":1e9,"mode":"training"})",
        R"({"gpu":"h200","model":"llama3-8b","batch":16,"seq":512,"context":1024,"mode":"decode",)"
        R"("precision":"bf16"})",
        R"({"gpu":"mi300x","model":"gpt2","batch":2,"seq":256,"predictor":"roofline"})",
        R"({"gpu":"a100-80gb-sxm","model":"llama3-8b","batch":4,"seq":512,"mode":"training",)"
        R"("precision":"bf16","finetune":{"method":"lora","rank":16}})",
        R"({"gpu":"t4","model":"bert-large","batch":1,"seq":128,"mode":"inference"})"};
    for (const std::string& r : requests) {
      CAPTURE(r);
      CHECK(api::forecast_model_one_gpu(r) == api::forecast_model(r));
    }
    const std::string bad = R"({"gpu":"a100-80gb-sxm","model":"gpt2","batch":0,"seq":8})";
    CHECK_THROWS_WITH_AS(api::forecast_model_one_gpu(bad), doctest::Contains("'batch'"), Error);
  }

  TEST_CASE("several GPUs or the Megatron engine: refused, naming forecast_model") {
    const std::string parallel =
        R"({"gpu":"a100-80gb-sxm","model":"gpt2-large","batch":16,"seq":1024,"mode":"training",)"
        R"("gpus":8,"tp":2})";
    const std::string megatron =
        R"({"gpu":"h100-sxm","model":"llama3-8b","batch":64,"seq":2048,"mode":"training",)"
        R"("engine":"megatron","gpus":8,"tp":2,"precision":"bf16"})";
    CHECK_NOTHROW(api::forecast_model(parallel));
    CHECK_NOTHROW(api::forecast_model(megatron));
    CHECK_THROWS_WITH_AS(api::forecast_model_one_gpu(parallel),
                         doctest::Contains("not several GPUs (fields gpus, dp, tp"), Error);
    CHECK_THROWS_WITH_AS(api::forecast_model_one_gpu(megatron),
                         doctest::Contains("not the Megatron engine; forecast_model does"), Error);
  }
}
