// Precision on every kernel: element sizes, datasheet peaks by data type and unit, the
// roofline's tensor-core bound, and clear errors where a GPU or the learned model has none.
#include "tilecast/precision.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/roofline.hpp"

using namespace tilecast;

namespace {

std::string spec_with_peaks(const std::string& peaks) {
  return R"({"id": "p", "name": "Peak GPU", "vendor": "NVIDIA", "num_sm": 108,
    "cores_per_sm": 64, "boost_clock_mhz": 1410, "fp32_gflops": 19500, "mem_gb": 80,
    "mem_bw_gbps": 2039, "l2_mb": 40, "source": "test", "peak_tflops": )" +
         peaks + "}";
}

std::string peak_error(const std::string& peaks) {
  try {
    parse_gpu_spec(spec_with_peaks(peaks), "gpu.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string cli(const std::string& args, int* code) {
  const test::CliRun r = test::run_cli(args);
  *code = r.code;
  return r.output;
}

}  // namespace

TEST_SUITE("precision") {
  TEST_CASE("data types: names and element sizes") {
    CHECK(dtype_bytes(DataType::fp32) == 4);
    CHECK(dtype_bytes(DataType::tf32) == 4);
    CHECK(dtype_bytes(DataType::fp16) == 2);
    CHECK(dtype_bytes(DataType::bf16) == 2);
    CHECK(dtype_bytes(DataType::fp8) == 1);
    CHECK(dtype_bytes(DataType::int8) == 1);
    for (int t = 0; t < kDataTypeCount; ++t)
      CHECK((parse_dtype(dtype_name(DataType(t))) == DataType(t)));
    CHECK_THROWS_WITH_AS(parse_dtype("fp64"), doctest::Contains("allowed: fp32, tf32"), Error);
  }

  TEST_CASE("catalog peaks by data type and unit, from the datasheets") {
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    CHECK(a100.peak_tflops_of(DataType::tf32, ComputeUnit::tensor) == 156);
    CHECK(a100.peak_tflops_of(DataType::bf16, ComputeUnit::tensor) == 312);
    CHECK(a100.peak_tflops_of(DataType::fp16, ComputeUnit::vector) == 78);
    CHECK(a100.peak_tflops_of(DataType::int8, ComputeUnit::tensor) == 624);
    CHECK(a100.peak_tflops_of(DataType::fp8, ComputeUnit::tensor) == 0);
    CHECK(!a100.peak_source.empty());
    CHECK(find_gpu("h100-sxm").peak_tflops_of(DataType::fp8, ComputeUnit::tensor) == 1978.9);
    const GpuSpec& v100 = find_gpu("v100-pcie");
    CHECK(v100.peak_tflops_of(DataType::fp16, ComputeUnit::tensor) == 112);
    CHECK(v100.peak_tflops_of(DataType::bf16, ComputeUnit::tensor) == 0);
    // Round trip through the catalog format.
    const GpuSpec again = parse_gpu_spec(gpu_spec_to_json(a100), "a100.json");
    CHECK((again.peak_tflops == a100.peak_tflops));
    CHECK(again.peak_source == a100.peak_source);
  }

  TEST_CASE("peak_tflops is validated, naming the file and the field") {
    CHECK(peak_error(R"({"fp16": {"tensor": 312}})") == "");
    for (const char* bad :
         {R"([1])", R"({"fp64": {"tensor": 1}})", R"({"fp16": {"sparse": 1}})",
          R"({"fp16": {"tensor": -1}})", R"({"fp16": {"tensor": "312"}})", R"({"fp16": 312})",
          R"({"fp16": {"tensor": 1e9}})", R"({"fp32": {"vector": 19.5}})"}) {
      const std::string e = peak_error(bad);
      CAPTURE(bad);
      CHECK(e.find("gpu.json") == 0);
      CHECK(e.find("peak_tflops") != std::string::npos);
    }
    CHECK(peak_error(R"({"fp32": {"vector": 19.5}})").find("fp32_gflops") != std::string::npos);
    CHECK(peak_error(R"({"fp16": {"sparse": 1}})").find("'sparse'") != std::string::npos);
  }

  TEST_CASE("which peak a kernel uses: tensor cores for GEMMs, vector units for the rest") {
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    auto peak = [&](const char* op, const char* dims, DataType t) {
      return peak_gflops(a100, parse_kernel(op, dims, t));
    };
    CHECK(peak("linear", "1,64,64,64", DataType::fp32) == a100.fp32_matrix_gflops);
    CHECK(peak("add", "8,8", DataType::fp32) == a100.fp32_gflops);
    CHECK(peak("linear", "1,64,64,64", DataType::tf32) == 156000);
    CHECK(peak("bmm", "2,64,64,64", DataType::bf16) == 312000);
    CHECK(peak("linear", "1,64,64,64", DataType::int8) == 624000);
    CHECK(peak("add", "8,8", DataType::fp16) == 78000);
    CHECK(peak("softmax", "8,8", DataType::bf16) == 39000);
    // No vector figure on the datasheet: the FP32 vector peak.
    CHECK(peak("add", "8,8", DataType::tf32) == a100.fp32_gflops);
    CHECK(peak("ln", "8,8", DataType::int8) == a100.fp32_gflops);
    // AMD FP32 GEMMs keep the matrix-core figure.
    const GpuSpec& mi = find_gpu("mi250-gcd");
    CHECK(peak_gflops(mi, parse_kernel("linear", "1,64,64,64")) == mi.fp32_matrix_gflops);
  }

  TEST_CASE("the roofline in bf16: tensor-core compute, 2-byte traffic") {
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    const Kernel k = parse_kernel("linear", "1,8192,8192,8192", DataType::bf16);
    const KernelForecast f = forecast_kernel(a100, k, Predictor::roofline);
    const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
    CHECK(f.flops == flops);
    CHECK(f.bytes == 2.0 * 3 * 8192.0 * 8192.0);
    CHECK(f.latency_ms == doctest::Approx(flops / 312e9));
    const Kernel add = parse_kernel("add", "8192,8192", DataType::fp8);
    CHECK(forecast_kernel(a100, add, Predictor::roofline).latency_ms ==
          doctest::Approx(3.0 * 8192 * 8192 / (a100.mem_bw_gbps * 1e6)));
    // FP32 is unchanged by all of this.
    const Kernel f32 = parse_kernel("linear", "1,8192,8192,8192");
    CHECK(forecast_kernel(a100, f32, Predictor::roofline).latency_ms ==
          doctest::Approx(flops / (a100.fp32_gflops * 1e6)));
  }

  TEST_CASE("no peak, no learned model: errors that say what there is") {
    const GpuSpec& v100 = find_gpu("v100-pcie");
    const Kernel k = parse_kernel("linear", "1,1024,1024,1024", DataType::bf16);
    try {
      forecast_kernel(v100, k, Predictor::roofline);
      FAIL("bf16 on a V100 gave a forecast");
    } catch (const Error& e) {
      const std::string m = e.what();
      CHECK(m.find(v100.name) != std::string::npos);
      CHECK(m.find("bf16") != std::string::npos);
      CHECK(m.find("fp16") != std::string::npos);  // what it has
    }
    // BF16 and FP16 have learned models (docs/fp16-model.md); FP8 GEMMs a transferred one, other
    // FP8 kernels none (an FP8 model runs them in BF16).
    CHECK_NOTHROW(forecast_kernel(find_gpu("h100-sxm"),
                                  parse_kernel("linear", "1,1024,1024,1024", DataType::fp8)));
    CHECK_THROWS_WITH_AS(
        forecast_kernel(find_gpu("h100-sxm"), parse_kernel("add", "1024,1024", DataType::fp8)),
        "no learned model for fp8 kernels yet; use --predictor roofline", Error);
  }

  TEST_CASE("the CLI's --precision and the JSON API's precision field") {
    int code = 0;
    std::string out =
        cli("kernel --gpu a100-80gb-sxm --op linear --dims 1,4096,4096,4096 --precision bf16 "
            "--predictor roofline --json",
            &code);
    CHECK(code == 0);
    auto j = nlohmann::json::parse(out);
    CHECK(j["precision"] == "bf16");
    CHECK(j["latency_ms"].get<double>() == doctest::Approx(2.0 * 4096.0 * 4096 * 4096 / 312e9));
    out = cli("kernel --gpu a100-80gb-sxm --op add --dims 8,1024 --json", &code);
    CHECK(code == 0);
    CHECK(nlohmann::json::parse(out)["precision"] == "fp32");
    out = cli("kernel --gpu a100-80gb-sxm --op add --dims 8,1024 --precision int8", &code);
    CHECK(code != 0);
    CHECK(out.find("use --predictor roofline") != std::string::npos);
    out = cli("kernel --gpu a100-80gb-sxm --op add --dims 8,1024 --precision bf16", &code);
    CHECK(code == 0);  // the FP16 models at the BF16 peak
    out = cli("kernel --gpu a100-80gb-sxm --op add --dims 8,1024 --precision fp64", &code);
    CHECK(code != 0);
    CHECK(out.find("'fp64' is not a precision") != std::string::npos);

    j = nlohmann::json::parse(api::forecast_kernel(
        R"({"gpu": "h100-sxm", "op": "bmm", "dims": [64, 2048, 128, 2048], "precision": "fp8",
            "predictor": "roofline"})"));
    CHECK(j["precision"] == "fp8");
    CHECK(j["flops"].get<double>() == 2.0 * 64 * 2048 * 128 * 2048);
    CHECK_THROWS_WITH_AS(
        api::forecast_kernel(R"({"gpu": "t4", "op": "add", "dims": [1, 8], "precision": 16})"),
        doctest::Contains("field 'precision'"), Error);
    CHECK(nlohmann::json::parse(api::forecast_kernel(
              R"({"gpu": "t4", "op": "add", "dims": [1, 8]})"))["precision"] == "fp32");
  }
}
