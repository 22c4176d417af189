// torch.compile on many GPUs (issue 28 item 1): each rank replays the compiled graph (element-
// wise chains fused, docs/fusion.md) instead of the eager one; everything else of the parallel
// step (docs/parallel.md) is the same.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

TEST_SUITE("compiled parallel") {
  TEST_CASE("the compiled engine on many GPUs: fewer kernels, a shorter step, the same layout") {
    ParallelConfig c;
    c.dp = 2;
    c.tp = 2;
    c.pp = 2;
    c.microbatches = 4;
    Workload w = make_workload(Mode::training, 16, 1024);
    w.dtype = DataType::bf16;
    const GpuSpec& gpu = find_gpu("a100-80gb-sxm");
    const SystemSpec& s = find_system("dgx-a100");
    const ModelConfig& m = find_model("gpt3-2.7b");
    const ParallelForecast eager = forecast_parallel(gpu, s, m, w, c, Predictor::tilecast);
    c.engine = Engine::compiled;
    const ParallelForecast compiled = forecast_parallel(gpu, s, m, w, c, Predictor::tilecast);
    CHECK(compiled.step_ms < eager.step_ms);
    CHECK(compiled.step_ms > 0.4 * eager.step_ms);
    c.engine = Engine::fused;
    CHECK_THROWS_WITH_AS(forecast_parallel(gpu, s, m, w, c, Predictor::tilecast),
                         doctest::Contains("serving engine"), Error);
    const nlohmann::json req = {{"gpu", "a100-80gb-sxm"},
                                {"model", "gpt3-2.7b"},
                                {"batch", 16},
                                {"seq", 1024},
                                {"mode", "training"},
                                {"precision", "bf16"},
                                {"engine", "compiled"},
                                {"dp", 2},
                                {"tp", 2},
                                {"pp", 2},
                                {"microbatches", 4}};
    const nlohmann::json j = nlohmann::json::parse(api::forecast_model(req.dump()));
    CHECK(j["parallel"]["engine"] == "compiled");
    CHECK(j["step_ms"].get<double>() == doctest::Approx(compiled.step_ms));
  }
}
