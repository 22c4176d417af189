// The 80% error bands on every learned forecast: kernels by family and size class, models by
// mode, in the core, the JSON API, `eval-e2e --json` and the CLI text; none for the roofline.
#include "tilecast/error_bands.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "kernel/family.hpp"
#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_eval.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/model_forecast.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/serving.hpp"

using namespace tilecast;

namespace {

std::string bands_json(const std::string& edges, const std::string& gemm,
                       const std::string& model = R"({"training":{"low":0.9,"high":1.1,"n":3}})") {
  return R"({"format":"tilecast-error-bands-1","protocol_hash":"h","kernel_class_edges_ms":)" +
         edges + R"(,"kernel":{"gemm":)" + gemm + R"(},"model":)" + model + "}";
}

}  // namespace

TEST_SUITE("error-bands") {
  TEST_CASE("the bands file: classes by forecast latency, bad files are named errors") {
    const ErrorBands b = parse_error_bands(
        bands_json("[0.1,1]", R"([{"low":0.5,"high":1,"n":1},{"low":0.8,"high":1.2,"n":2},)"
                              R"({"low":0.9,"high":1.5,"n":3}])"),
        "b.json");
    CHECK(b.kernel_band("gemm", 0.05)->n == 1);
    CHECK(b.kernel_band("gemm", 0.1)->n == 2);
    CHECK(b.kernel_band("gemm", 99)->n == 3);
    CHECK(b.kernel_band("softmax", 1) == nullptr);
    CHECK(b.model_band(Mode::training)->high == doctest::Approx(1.1));
    CHECK(b.model_band(Mode::inference) == nullptr);
    CHECK_THROWS_WITH_AS(parse_error_bands(bands_json("[1,0.1]", "[]"), "b.json"),
                         doctest::Contains("increasing"), Error);
    CHECK_THROWS_WITH_AS(
        parse_error_bands(bands_json("[1]", R"([{"low":0.5,"high":1,"n":1}])"), "b.json"),
        doctest::Contains("one band per size class"), Error);
    CHECK_THROWS_WITH_AS(
        parse_error_bands(bands_json("[]", R"([{"low":1.5,"high":1,"n":1}])"), "b.json"),
        doctest::Contains("high"), Error);
    CHECK_THROWS_WITH_AS(parse_error_bands(bands_json("[]", R"([{"low":0.5,"high":1,"n":1}])",
                                                      R"({"decode":{"low":0.9,"high":1.1,"n":3}})"),
                                           "b.json"),
                         doctest::Contains("model.decode"), Error);
  }

  TEST_CASE(
      "every learned kernel and model forecast carries the embedded band; the roofline none") {
    const ErrorBands& bands = embedded_error_bands();
    REQUIRE(!bands.empty());
    const GpuSpec gpu = find_gpu("a100-80gb-pcie");
    for (const char* spec : {"linear:1,4096,4096,4096", "bmm:96,512,64,512", "add:1,4096",
                             "softmax:4096,4096", "ln:8192,1024", "gelu:64,1024"}) {
      const std::string s(spec);
      const Kernel k = parse_kernel(s.substr(0, s.find(':')), s.substr(s.find(':') + 1));
      const KernelForecast f = forecast_kernel(gpu, k);
      const ErrorBand* band = bands.kernel_band(family_of(k.op).name, f.latency_ms);
      INFO(spec);
      REQUIRE(band != nullptr);
      CHECK(f.band_low_ms == doctest::Approx(f.latency_ms * band->low));
      CHECK(f.band_high_ms == doctest::Approx(f.latency_ms * band->high));
      CHECK(f.band_low_ms < f.band_high_ms);
      const KernelForecast r = forecast_kernel(gpu, k, Predictor::roofline);
      CHECK(r.band_low_ms == 0);
      CHECK(r.band_high_ms == 0);
    }
    const ModelConfig gpt2 = find_model("gpt2");
    const ModelForecast train =
        forecast_model(gpu, gpt2, make_workload(Mode::training, 4, 512), Predictor::tilecast);
    CHECK(train.band_low_ms ==
          doctest::Approx(train.latency_ms * bands.model_band(Mode::training)->low));
    CHECK(train.band_high_ms ==
          doctest::Approx(train.latency_ms * bands.model_band(Mode::training)->high));
    const ModelForecast decode =
        forecast_model(gpu, gpt2, make_workload(Mode::decode, 4, 512, 512), Predictor::tilecast);
    CHECK(decode.band_high_ms ==
          doctest::Approx(decode.latency_ms * bands.model_band(Mode::inference)->high));
    const ModelForecast roof =
        forecast_model(gpu, gpt2, make_workload(Mode::training, 4, 512), Predictor::roofline);
    CHECK(roof.band_high_ms == 0);
  }

  TEST_CASE("another precision: kernels carry no band, whole models the FP32 band by transfer") {
    REQUIRE(kBandPrecision == DataType::fp32);
    CHECK(!model_band_transferred(DataType::fp32));
    const ErrorBands& bands = embedded_error_bands();
    const GpuSpec gpu = find_gpu("a100-80gb-sxm");
    for (DataType t : {DataType::fp16, DataType::bf16}) {
      CAPTURE(dtype_name(t));
      CHECK(model_band_transferred(t));
      for (const char* op : {"linear", "add"}) {
        const Kernel k =
            parse_kernel(op, op == std::string("add") ? "1,4096" : "1,4096,4096,4096", t);
        const KernelForecast f = forecast_kernel(gpu, k);
        CHECK(f.latency_ms > 0);
        CHECK(f.band_low_ms == 0);
        CHECK(f.band_high_ms == 0);
      }
      for (Mode mode : {Mode::inference, Mode::training, Mode::decode}) {
        Workload w = make_workload(mode, 4, 512, mode == Mode::decode ? 512 : 0);
        w.dtype = t;
        const ModelForecast m = forecast_model(gpu, find_model("gpt2"), w, Predictor::tilecast);
        const ErrorBand* band = bands.model_band(mode);
        REQUIRE(band != nullptr);
        CHECK(m.band_low_ms == doctest::Approx(m.latency_ms * band->low));
        CHECK(m.band_high_ms == doctest::Approx(m.latency_ms * band->high));
        CHECK(forecast_model(gpu, find_model("gpt2"), w, Predictor::roofline).band_high_ms == 0);
      }
    }
    // the response says the band is carried over, in the forecast's own precision's words
    const auto j = nlohmann::json::parse(api::forecast_model(
        R"({"gpu":"h100-sxm","model":"gpt2","batch":2,"seq":256,"precision":"bf16"})"));
    CHECK(j.at("band_high_ms").get<double>() > j.at("latency_ms").get<double>());
    bool said = false;
    for (const auto& c : j.at("caveats"))
      said = said || c.get<std::string>() == transferred_band_caveat(DataType::bf16);
    CHECK(said);
    CHECK(transferred_band_caveat(DataType::bf16).find("bf16") != std::string::npos);
  }

  TEST_CASE("JSON: band_low_ms / band_high_ms on kernel and model forecasts and eval-e2e cases") {
    const auto k = nlohmann::json::parse(
        api::forecast_kernel(R"({"gpu":"t4","op":"linear","dims":[1,1024,1024,1024]})"));
    CHECK(k.at("band_low_ms").get<double>() < k.at("band_high_ms").get<double>());
    const auto kr = nlohmann::json::parse(api::forecast_kernel(
        R"({"gpu":"t4","op":"linear","dims":[1,1024,1024,1024],"predictor":"roofline"})"));
    CHECK(kr.at("band_low_ms").is_null());
    const auto m = nlohmann::json::parse(api::forecast_model(
        R"({"gpu":"t4","model":"gpt2","batch":2,"seq":256,"mode":"training"})"));
    CHECK(m.at("band_low_ms").get<double>() < m.at("band_high_ms").get<double>());
    const std::string d = test::data_dir();
    const test::CliRun e2e = test::run_cli("eval-e2e --devices '" + d + "/devices' --models '" + d +
                                           "/models' --labels '" + d + "/labels' --json");
    REQUIRE(e2e.code == 0);
    const auto j = nlohmann::json::parse(e2e.output);
    REQUIRE(!j.at("cases").empty());
    // every case carries the band: single-GPU ones (no option, or fusion) the fitted one, the
    // multi-GPU ones (option dp4, tp4, pp4_1) the same carried over (docs/parallel.md, "80% band")
    std::size_t banded = 0, multi = 0;
    for (const auto& c : j.at("cases")) {
      const std::string option = c.at("option").get<std::string>();
      multi += !(option.empty() || option == "fusion");
      banded += c.at("band_low_ms").is_number() && c.at("band_high_ms").is_number() &&
                c.at("band_high_ms").get<double>() > c.at("band_low_ms").get<double>();
    }
    CHECK(multi > 0);
    CHECK(banded == j.at("cases").size());
    const test::CliRun text = test::run_cli("kernel --gpu t4 --op add --dims 8,1024");
    CHECK(text.output.find("80% band") != std::string::npos);
    const test::CliRun model = test::run_cli("forecast --gpu t4 --model gpt2 --seq 128");
    CHECK(model.output.find("80% band") != std::string::npos);
  }

  TEST_CASE(
      "a static serving forecast carries the inference band as multipliers; none by roofline") {
    const ErrorBand* inference = embedded_error_bands().model_band(Mode::inference);
    REQUIRE(inference != nullptr);
    const GpuSpec gpu = find_gpu("h100-sxm");
    const ModelConfig model = find_model("llama3-8b");
    for (DataType t : {DataType::bf16, DataType::fp8}) {
      CAPTURE(dtype_name(t));
      ServingRequest r;
      r.dtype = t;
      const ServingForecast f = forecast_serving(gpu, model, r);
      REQUIRE(f.band.has_value());
      CHECK(f.band->low == inference->low);
      CHECK(f.band->high == inference->high);
      bool said = false;
      for (const std::string& c : f.caveats) said = said || c == transferred_band_caveat(t);
      CHECK(said);
      r.predictor = Predictor::roofline;
      CHECK(!forecast_serving(gpu, model, r).band.has_value());
    }
    const auto j = nlohmann::json::parse(api::forecast_serving(
        R"({"gpu":"h100-sxm","model":"llama3-8b","prompt":128,"output":16,"predictor":"roofline"})"));
    CHECK(j.at("band").is_null());
  }

  TEST_CASE("a multi-GPU step carries the single-GPU band, carried over; the roofline none") {
    const ErrorBand* training = embedded_error_bands().model_band(Mode::training);
    REQUIRE(training != nullptr);
    const auto j = nlohmann::json::parse(api::forecast_model(
        R"({"gpu":"a100-40gb-sxm","model":"gpt2","batch":8,"seq":512,"mode":"training",)"
        R"("gpus":4,"dp":2,"tp":2,"system":"dgx-a100"})"));
    const double step = j.at("step_ms").get<double>();
    CHECK(j.at("band_low_ms").get<double>() == doctest::Approx(step * training->low));
    CHECK(j.at("band_high_ms").get<double>() == doctest::Approx(step * training->high));
    bool said = false;
    for (const auto& c : j.at("caveats"))
      said = said || c.get<std::string>() == multi_gpu_band_caveat(DataType::fp32);
    CHECK(said);
    CHECK(multi_gpu_band_caveat(DataType::bf16).find("bf16") != std::string::npos);
    const auto roof = nlohmann::json::parse(api::forecast_model(
        R"({"gpu":"a100-40gb-sxm","model":"gpt2","batch":8,"seq":512,"mode":"training",)"
        R"("gpus":4,"dp":2,"tp":2,"system":"dgx-a100","predictor":"roofline"})"));
    CHECK(roof.at("band_low_ms").is_null());
    // the Megatron engine's step: no band, and a caveat saying what it is checked against
    const auto mega = nlohmann::json::parse(api::forecast_model(
        R"({"gpu":"a100-80gb-sxm","model":"gpt2","batch":8,"seq":512,"mode":"training",)"
        R"("gpus":4,"dp":2,"tp":2,"system":"dgx-a100","engine":"megatron"})"));
    CHECK(!mega.contains("band_low_ms"));
    bool checked = false;
    for (const auto& c : mega.at("caveats"))
      checked = checked || c.get<std::string>() == megatron_band_caveat();
    CHECK(checked);
  }

  TEST_CASE("eval-kernels reports how many measurements fall inside their forecasts' bands") {
    const GpuSpec t4 = find_gpu("t4");
    const std::map<std::string, GpuSpec> devices{{"T4", t4}};
    std::vector<MeasuredKernel> rows;
    for (const char* spec : {"linear:1,1024,1024,1024", "add:1,4096", "softmax:4096,4096"}) {
      const std::string s(spec);
      MeasuredKernel r;
      r.device = "T4";
      r.origin = spec;
      r.kernel = parse_kernel(s.substr(0, s.find(':')), s.substr(s.find(':') + 1));
      const KernelForecast f = forecast_kernel(t4, r.kernel);
      r.latency_ms = f.band_high_ms * 1.01;  // just outside the top
      rows.push_back(r);
      r.latency_ms = f.latency_ms;  // at the forecast: inside
      rows.push_back(r);
    }
    const EvalReport rep = evaluate_kernels(rows, devices);
    CHECK(rep.banded == 6);
    CHECK(rep.inside_band == 3);
    CHECK(rep.mean_band_width_pct > 0);
    const auto j = nlohmann::json::parse(eval_report_to_json(rep));
    CHECK(j.at("band").at("inside_pct").get<double>() == doctest::Approx(50));
    CHECK(eval_report_to_text(rep, Predictor::tilecast).find("3 of 6 inside") != std::string::npos);
    // the roofline carries no band: none to count
    const auto roof = nlohmann::json::parse(
        eval_report_to_json(evaluate_kernels(rows, devices, Predictor::roofline)));
    CHECK(roof.at("band").is_null());
  }
}
