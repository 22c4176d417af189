// The FP16/BF16 models (core/data/models/nvidia-half/kernel_weights.json): registered for NVIDIA
// FP16 and BF16 kernels, accurate on both vidur GPUs within committed ceilings, trained on the
// current data and trainer config, deterministic; the tensor-core tile rule; FP8 still has no
// model; the analytic tensor-core GEMM model (core/data/models/nvidia-half-gemm/tensor_gemm.json)
// serves FP16/BF16 GEMMs and is what the fit gives on the shipped data.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "forecast/model_registry.hpp"
#include "forecast/tensor_gemm_predictor.hpp"
#include "kernel/dram_efficiency.hpp"
#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "kernel/tensor_tiles.hpp"
#include "learned/features.hpp"
#include "learned/tensor_gemm.hpp"
#include "learned/tile_table.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/train_fp16.hpp"
#include "tilecast/vidur_ops.hpp"

using namespace tilecast;

namespace {

std::string vidur_dir() { return test::data_dir() + "/../vidur/compute"; }

// What scripts/train_fp16.sh trains on: each GPU's folder, its CSVs named "<folder>/<path>".
struct GpuData {
  const char* folder;
  const char* catalog_id;
};
constexpr GpuData kHalfGpus[] = {{"a100", "a100-80gb-sxm"}, {"a40", "a40"}};

std::vector<TrainText> csvs_of(const std::string& folder) {
  std::vector<std::string> rel;
  const std::string root = vidur_dir() + "/" + folder;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.path().filename() == "mlp.csv")
      rel.push_back(std::filesystem::relative(e.path(), root).generic_string());
  std::sort(rel.begin(), rel.end());
  std::vector<TrainText> out;
  for (const std::string& r : rel)
    out.push_back({folder + "/" + r, test::read_file(root + "/" + r)});
  return out;
}

std::vector<Fp16TrainInput> shipped_inputs() {
  std::vector<Fp16TrainInput> out;
  for (const GpuData& g : kHalfGpus) out.push_back({find_gpu(g.catalog_id), csvs_of(g.folder)});
  return out;
}

nlohmann::json committed_weights() {
  return nlohmann::json::parse(
      test::read_file(test::repo_dir() + "/core/data/models/nvidia-half/kernel_weights.json"));
}

nlohmann::json committed_gemm_model() {
  return nlohmann::json::parse(
      test::read_file(test::repo_dir() + "/core/data/models/nvidia-half-gemm/tensor_gemm.json"));
}

// MAPE ceilings (%) of the shipped model (trained on both GPUs) per GPU and operator: the lower
// of the target (projections 10, norm/activation/rotary/add 15) and today's error
// x 1.05 + 0.5 (`python3 scripts/accuracy_gaps.py BUILD half` after retraining).
const std::map<std::string, std::map<std::string, double>> kHalfCeilings = {
#include "fp16_accuracy_ceilings.inc"
};

}  // namespace

TEST_SUITE("fp16_model") {
  TEST_CASE("the tensor-core tile: least waves x tile area, ties to the larger tile") {
    const std::int64_t big[] = {1, 4096, 4096, 4096};
    const GemmTile t = tensor_core_gemm_tile(make_kernel(Op::linear, big, 4, DataType::fp16), 108);
    // 4096x4096 outputs on 108 SMs: 256x128 is 512 tiles in 5 waves (cost 5 x 32768 =
    // 163840), 128x128 10 x 16384 = 163840, 128x64 2048 tiles in 19 waves (155648) and 64x64
    // 38 x 4096 = 155648: a tie, to the larger tile.
    CHECK(t.rows == 128);
    CHECK(t.cols == 64);
    const std::int64_t decode[] = {1, 1, 4096, 4096};
    const GemmTile d =
        tensor_core_gemm_tile(make_kernel(Op::linear, decode, 4, DataType::fp16), 108);
    CHECK(d.rows == 64);  // one token: the smallest tile wastes the least
    CHECK(d.cols == 64);
  }

  TEST_CASE("FP16 and BF16 kernels take the learned model; FP8 only GEMMs, by transfer") {
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    const std::int64_t dims[] = {1, 512, 4096, 4096};
    const KernelForecast h =
        forecast_kernel(a100, make_kernel(Op::linear, dims, 4, DataType::fp16));
    CHECK(h.latency_ms > h.roofline_ms);
    CHECK(h.tile.find("x") != std::string::npos);
    const KernelForecast b =
        forecast_kernel(a100, make_kernel(Op::linear, dims, 4, DataType::bf16));
    CHECK(b.latency_ms == h.latency_ms);  // the same model at the same (312 TFLOPS) peak
    const std::int64_t row[] = {512, 4096};
    const KernelForecast n =
        forecast_kernel(a100, make_kernel(parse_op("rmsnorm"), row, 2, DataType::fp16));
    CHECK(n.latency_ms >= n.roofline_ms);
    // FP8: the A100 has no FP8 tensor cores; on an H100 an FP8 GEMM takes the tensor-core GEMM
    // model (a transfer, docs/fp16-model.md), an FP8 norm has no model (FP8 models run it in BF16)
    CHECK_THROWS_WITH_AS(forecast_kernel(a100, make_kernel(Op::linear, dims, 4, DataType::fp8)),
                         doctest::Contains("no fp8 tensor-core peak"), Error);
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const KernelForecast f8 =
        forecast_kernel(h100, make_kernel(Op::linear, dims, 4, DataType::fp8));
    CHECK(f8.latency_ms > f8.roofline_ms);
    CHECK(f8.latency_ms <
          forecast_kernel(h100, make_kernel(Op::linear, dims, 4, DataType::bf16)).latency_ms);
    CHECK_THROWS_WITH_AS(
        forecast_kernel(h100, make_kernel(parse_op("rmsnorm"), row, 2, DataType::fp8)),
        doctest::Contains("no learned model for fp8"), Error);
    // FP32 has no model for the token-row kernels.
    CHECK_THROWS_AS(forecast_kernel(a100, make_kernel(parse_op("rmsnorm"), row, 2)), Error);
  }

  TEST_CASE("the shipped model on both GPUs' rows stays within the committed ceilings") {
    for (const GpuData& g : kHalfGpus) {
      std::vector<VidurOpRow> rows;
      for (const TrainText& c : csvs_of(g.folder)) {
        auto part = parse_vidur_mlp_csv(c.text, c.name);
        rows.insert(rows.end(), part.begin(), part.end());
      }
      const EvalReport rep = evaluate_vidur_ops(rows, find_gpu(g.catalog_id));
      REQUIRE(rep.groups.size() == 10);
      for (const EvalGroup& e : rep.groups) {
        INFO(g.folder, " ", e.op, ": ", e.mape_pct, "% (roofline ", e.roofline_mape_pct, "%)");
        CHECK(e.mape_pct <= kHalfCeilings.at(g.folder).at(e.op));
        CHECK(e.mape_pct < e.roofline_mape_pct);
      }
    }
  }

  TEST_CASE("the token rows' resident-thread bound is held at the training GPUs' lowest share") {
    // kScalarLoadMinStreamShare must sit at, and just below, the lowest share of bandwidth the
    // resident threads' bound gives on a training GPU: below it, so their tile times (and the
    // nets) are what the bound alone gives; near it, so it is the training range's boundary.
    double lowest = 1e9;
    for (const GpuData& g : kHalfGpus) {
      const GpuSpec& gpu = find_gpu(g.catalog_id);
      const LibraryProfile& lib = library_profile_for(gpu);
      const double bw_per_sm = learned_mem_bw_gbps(gpu, lib) * 1e9 / gpu.num_sm;
      const double share = gpu.max_threads_per_sm * kScalarLoadBytesPerThreadPerS / bw_per_sm;
      lowest = std::min(lowest, share);
    }
    CHECK(kScalarLoadMinStreamShare <= lowest);
    CHECK(kScalarLoadMinStreamShare > lowest - 0.02);
    // and past it the kernels scale with bandwidth: a copy of the H200 with twice the bandwidth
    // forecasts an RMSNorm twice as fast, less the fixed overhead
    GpuSpec fast = find_gpu("h200");
    const std::int64_t rows[] = {16384, 8192};
    const Kernel rms = make_kernel(parse_op("rmsnorm"), rows, 2, DataType::bf16);
    const KernelForecast slow_f = forecast_kernel(fast, rms);
    fast.mem_bw_gbps *= 2;
    const KernelForecast fast_f = forecast_kernel(fast, rms);
    CHECK(slow_f.latency_ms / fast_f.latency_ms > 1.9);
  }

  TEST_CASE("token rows run in occupancy waves: blocks an SM holds at once run side by side") {
    // vLLM's launches: RMSNorm and SiLU-and-mul min(H, 1024) threads a token, rotary
    // min(H / 2, 512); the gather none (learned/features.cpp's one-block-per-SM waves)
    const auto threads = [](const char* op, std::int64_t h) {
      const std::int64_t dims[] = {64, h};
      const Kernel k = make_kernel(parse_op(op), dims, 2, DataType::fp16);
      return family_of(k.op).block_threads(k);
    };
    CHECK(threads("rmsnorm", 8192) == 1024);
    CHECK(threads("rmsnorm", 512) == 512);
    CHECK(threads("silu_mul", 28672) == 1024);
    CHECK(threads("rotary", 16384) == 512);
    CHECK(threads("embedding", 8192) == 0);
    // The kernel's roofline (waves x tile) of a rotary over 16,384 features on the A40: three of
    // its 512-thread blocks fit an SM (1,536 threads), so up to 252 tokens are one occupancy
    // wave, its bytes at every SM's busy rate (not a lone tile per 84 tokens, as the features'
    // waves count them); 256 tokens add a wave of 4 blocks, each alone on its SM.
    const GpuSpec& a40 = find_gpu("a40");
    const TileTable no_table;
    const auto kernel_roofline_ms = [&](const GpuSpec& gpu, const char* op, std::int64_t tokens,
                                        std::int64_t h) {
      const std::int64_t dims[] = {tokens, h};
      const Kernel k = make_kernel(parse_op(op), dims, 2, DataType::fp16);
      const TilePlan p = plan_kernel(gpu, k, no_table, library_profile_for(gpu));
      return double(p.waves) * tile_roofline_ms(gpu, k, p, library_profile_for(gpu));
    };
    const auto rotary_ms = [&](std::int64_t tokens) {
      return kernel_roofline_ms(a40, "rotary", tokens, 16384);
    };
    CHECK(rotary_ms(88) == doctest::Approx(rotary_ms(84) * 88 / 84));
    CHECK(rotary_ms(252) == doctest::Approx(3 * rotary_ms(84)));
    CHECK(rotary_ms(256) - rotary_ms(252) == doctest::Approx(rotary_ms(1)));
    // a lone block: the A100's resident-thread rate (8.2 GB/s at 1,410 MHz), at the A40's clock
    const double tile_bytes = 16384 * 2 * 2;
    CHECK(rotary_ms(1) ==
          doctest::Approx(tile_bytes / (kLoneBlockThreads * kScalarLoadBytesPerThreadPerS * 1e-3 *
                                        a40.clock_mhz / 1410)));
    // an RMSNorm's 1,024-thread blocks fit one to an A40 SM: every 84 tokens is a wave
    const auto norm_ms = [&](std::int64_t tokens) {
      return kernel_roofline_ms(a40, "rmsnorm", tokens, 8192);
    };
    CHECK(norm_ms(85) - norm_ms(84) == doctest::Approx(norm_ms(1)));
    // and two to an A100 SM (2,048 threads): 216 tokens are one wave
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    CHECK(kernel_roofline_ms(a100, "rmsnorm", 216, 8192) ==
          doctest::Approx(2 * kernel_roofline_ms(a100, "rmsnorm", 108, 8192)));
    CHECK(kernel_roofline_ms(a100, "rmsnorm", 217, 8192) >
          1.1 * kernel_roofline_ms(a100, "rmsnorm", 216, 8192));
  }

  TEST_CASE("the committed FP16 weights are current: inputs, trainer config and hash") {
    const nlohmann::json w = committed_weights();
    const Fp16TrainConfig cfg;  // scripts/train_fp16.sh: seed 1, the families' epochs
    CHECK(w.at("seed").get<int>() == 1);
    CHECK(w.at("config").get<std::string>() == fp16_train_config_text(cfg));
    const std::vector<Fp16TrainInput> inputs = shipped_inputs();
    std::vector<std::string> names;
    for (const Fp16TrainInput& in : inputs)
      for (const TrainText& c : in.csvs) names.push_back(in.gpu.name + ": " + c.name);
    CHECK(w.at("inputs").get<std::vector<std::string>>() == names);
    char hex[20];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(fp16_training_hash(inputs, cfg)));
    INFO("retrain with scripts/train_fp16.sh when the data or the trainer config changed");
    CHECK(w.at("hash").get<std::string>() == std::string("fnv1a64:") + hex);
  }

  TEST_CASE("a short run: loss falls, the same seed gives the same bytes") {
    const GpuSpec& a40 = find_gpu("a40");
    std::vector<TrainText> one;
    for (const TrainText& c : csvs_of("a40"))
      if (c.name.find("Llama-2-7b") != std::string::npos) one.push_back(c);
    REQUIRE(one.size() == 1);
    Fp16TrainConfig cfg;
    cfg.seed = 3;
    cfg.epochs = 6;
    const Fp16TrainResult a = train_fp16_models({{a40, one}}, cfg, "test");
    const Fp16TrainResult b = train_fp16_models({{a40, one}}, cfg, "test");
    CHECK(a.weights_json == b.weights_json);
    CHECK(a.rows == 261 * 4 * 10);
    CHECK(a.samples < a.rows);  // repeats of a kernel become one sample
    for (const char* fam : {"gemm", "elementwise", "token_rows"}) {
      INFO(fam);
      REQUIRE(a.losses.count(fam) == 1);
      CHECK(a.losses.at(fam).last < a.losses.at(fam).first);
    }
    cfg.seed = 4;
    CHECK(train_fp16_models({{a40, one}}, cfg, "test").weights_json != a.weights_json);
  }

  TEST_CASE("FP16 and BF16 GEMMs take the analytic tensor-core model, by its formula") {
    const TensorGemmModel& m =
        embedded_model_part<TensorGemmModel>("nvidia-half-gemm", "model", parse_tensor_gemm_model);
    REQUIRE(m.valid());
    const GpuSpec& a100 = find_gpu("a100-80gb-sxm");
    const std::int64_t dims[] = {1, 512, 4096, 4096};
    const Kernel k = make_kernel(Op::linear, dims, 4, DataType::fp16);
    const KernelForecast f = forecast_kernel(a100, k);
    // By hand: 512 x 4096 outputs on 108 SMs take 64x64 tiles (64 x 8 = 512 of them, 5
    // waves: 5 x 4096 is the least waves x area; 128x64 needs 3 x 8192), each 2 x 64 x 64 x
    // 4096 FLOPs at 312 TFLOPS / 108 SMs; the bytes are 2 x (512 x 4096 + 4096 x 4096 + 512 x
    // 4096) at 2039 GB/s.
    CHECK(f.tile == "64x64");
    CHECK(f.waves == 5);
    const double compute_ms = 5 * 2.0 * 64 * 64 * 4096 / (312e3 * 1e6 / 108);
    const double memory_ms = 2.0 * (512.0 * 4096 * 2 + 4096.0 * 4096) / (2039 * 1e6);
    const double expect =
        std::max(m.compute_scale * compute_ms, m.bandwidth_scale * memory_ms) + m.overhead_ms;
    CHECK(f.latency_ms == doctest::Approx(expect).epsilon(1e-12));
    CHECK(f.latency_ms > f.roofline_ms);
    CHECK(f.overhead_ms == m.overhead_ms);
    const KernelForecast b =
        forecast_kernel(a100, make_kernel(Op::linear, dims, 4, DataType::bf16));
    CHECK(b.latency_ms == f.latency_ms);
    // The model is registered for GEMMs only; on its own it refuses other ops.
    const auto p = make_tensor_gemm_predictor(m);
    CHECK(p->forecast(a100, k).latency_ms == f.latency_ms);
    const std::int64_t row[] = {512, 4096};
    CHECK_THROWS_WITH_AS(p->forecast(a100, make_kernel(Op::add, row, 2, DataType::fp16)),
                         doctest::Contains("GEMMs only"), Error);
    CHECK_THROWS_AS(make_tensor_gemm_predictor(TensorGemmModel{}), Error);
  }

  TEST_CASE("a malformed tensor-core GEMM model file names the field") {
    nlohmann::json j = committed_gemm_model();
    CHECK(parse_tensor_gemm_model(j.dump(), "x").valid());
    auto with = [&](const char* field, nlohmann::json v) {
      nlohmann::json c = j;
      c[field] = v;
      return c.dump();
    };
    CHECK_THROWS_WITH_AS(parse_tensor_gemm_model(with("compute_scale", -1.0), "f.json"),
                         doctest::Contains("f.json: field 'compute_scale'"), Error);
    CHECK_THROWS_WITH_AS(parse_tensor_gemm_model(with("bandwidth_scale", "fast"), "f.json"),
                         doctest::Contains("'bandwidth_scale'"), Error);
    CHECK_THROWS_WITH_AS(parse_tensor_gemm_model(with("overhead_ms", -0.001), "f.json"),
                         doctest::Contains("'overhead_ms'"), Error);
    CHECK_THROWS_WITH_AS(parse_tensor_gemm_model(with("form", "a+b"), "f.json"),
                         doctest::Contains("field 'form'"), Error);
    CHECK_THROWS_WITH_AS(parse_tensor_gemm_model("[1]", "f.json"),
                         doctest::Contains("expected a JSON object"), Error);
  }

  TEST_CASE("the committed tensor-core GEMM model is current: hash, and the fit's parameters") {
    const nlohmann::json g = committed_gemm_model();
    const std::vector<Fp16TrainInput> inputs = shipped_inputs();
    CHECK(g.at("config").get<std::string>() == tensor_gemm_config_text());
    char hex[20];
    std::snprintf(hex, sizeof hex, "%016llx",
                  static_cast<unsigned long long>(tensor_gemm_training_hash(inputs)));
    INFO("retrain with scripts/train_fp16.sh when the data or the fit changed");
    CHECK(g.at("hash").get<std::string>() == std::string("fnv1a64:") + hex);
    // The fit does not depend on the nets' epochs: one epoch is enough to refit it.
    Fp16TrainConfig cfg;
    cfg.epochs = 1;
    const nlohmann::json fit =
        nlohmann::json::parse(train_fp16_models(inputs, cfg, "test").gemm_json);
    for (const char* p : {"compute_scale", "bandwidth_scale", "overhead_ms", "samples"}) {
      INFO(p);
      CHECK(fit.at(p) == g.at(p));
    }
    CHECK(fit.at("hash") == g.at("hash"));
  }
}
