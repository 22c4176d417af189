// The megatron engine (docs/megatron.md): Korthikanti et al.'s activation formulas, eq. 7's
// model FLOPs, the interleaved bubble (p - 1)/v, uneven pipeline splits, FlashAttention by
// generation, errors that name what would work, the API's fields; and the published runs of
// Korthikanti et al. 2022 recomputed against the engine's targets (a regression fails).
#include "tilecast/megatron.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "graph/engines/megatron_layer.hpp"
#include "kernel/flash_attention.hpp"
#include "parallel/megatron.hpp"
#include "test_paths.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/published_eval.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

// GPT as Korthikanti et al. define it (learned positions, GeLU 4h MLP, dropout 0.1).
ModelConfig gpt(std::int64_t h, std::int64_t layers, std::int64_t heads, std::int64_t seq) {
  const nlohmann::json cfg = {{"architectures", {"GPT2LMHeadModel"}},
                              {"model_type", "gpt2"},
                              {"n_embd", h},
                              {"n_layer", layers},
                              {"n_head", heads},
                              {"vocab_size", 51200},
                              {"n_positions", seq}};
  return parse_model_config(cfg.dump(), "test");
}

Workload bf16_training(std::int64_t batch, std::int64_t seq, DataType t = DataType::bf16) {
  Workload w = make_workload(Mode::training, batch, seq);
  w.dtype = t;
  return w;
}

MegatronForecast a100(const ModelConfig& m, std::int64_t batch, std::int64_t seq,
                      const MegatronConfig& c) {
  SystemSpec s = find_system("dgx-a100");
  return forecast_megatron(find_gpu("a100-80gb-sxm"), s, m, bf16_training(batch, seq), c,
                           Predictor::tilecast);
}

}  // namespace

TEST_SUITE("megatron") {
  TEST_CASE("activation memory per layer is Korthikanti et al.'s section 4") {
    const detail::MegatronShape m = detail::megatron_shape(gpt(6144, 48, 64, 2048));
    detail::MegatronDims d;
    d.micro_batch = 4;
    d.seq = 2048;
    d.tp = 8;
    d.attention = AttentionKernel::fused_softmax;
    const double s = 2048, b = 4, h = 6144, a = 64, t = 8, sbh = s * b * h;
    using detail::layer_activation_bytes;
    CHECK(layer_activation_bytes(m, d, Recompute::none) ==
          doctest::Approx(sbh * (10 + 24 / t + 5 * a * s / (h * t))));
    CHECK(layer_activation_bytes(m, d, Recompute::selective) ==
          doctest::Approx(sbh * (10 + 24 / t)));
    CHECK(layer_activation_bytes(m, d, Recompute::full) == doctest::Approx(2 * sbh));
    d.sequence_parallel = true;
    CHECK(layer_activation_bytes(m, d, Recompute::none) ==
          doctest::Approx(sbh / t * (34 + 5 * a * s / h)));
    CHECK(layer_activation_bytes(m, d, Recompute::selective) == doctest::Approx(34 * sbh / t));
    CHECK(layer_activation_bytes(m, d, Recompute::full) == doctest::Approx(2 * sbh / t));
    // FlashAttention never keeps the scores: the selective count plus its log-sum-exp
    d.attention = AttentionKernel::flash;
    CHECK(layer_activation_bytes(m, d, Recompute::none) ==
          doctest::Approx(34 * sbh / t + 4 * a * s * b / t));
  }

  TEST_CASE("layers split over ranks and chunks as evenly as they go") {
    const auto even = detail::layers_per_rank(96, 8, 3);
    for (int n : even) CHECK(n == 12);
    const auto uneven = detail::layers_per_rank(48, 5, 1);
    int sum = 0, lo = 99, hi = 0;
    for (int n : uneven) {
      sum += n;
      lo = std::min(lo, n);
      hi = std::max(hi, n);
    }
    CHECK(sum == 48);
    CHECK(hi - lo == 1);
  }

  TEST_CASE("model FLOPs are eq. 7, MFU their share of the peak") {
    MegatronConfig c;
    c.tp = 8;
    c.sequence_parallel = true;
    c.recompute = Recompute::selective;
    c.attention = AttentionKernel::fused_softmax;
    const MegatronForecast f = a100(gpt(6144, 48, 64, 2048), 4, 2048, c);
    const double B = 4, L = 48, s = 2048, h = 6144, V = 51200;
    const double eq7 = 72 * B * L * s * h * h * (1 + s / (6 * h) + V / (12 * h * L));
    CHECK(f.model_flops == doctest::Approx(eq7).epsilon(1e-12));
    CHECK(f.mfu == doctest::Approx(eq7 / (f.step_ms / 1e3) / 8 / 312e12).epsilon(1e-9));
    CHECK(f.hfu > f.mfu);
    // the breakdown sums to the step
    const MegatronBreakdown& b = f.breakdown;
    CHECK(b.compute_ms + b.tp_comm_ms + b.pp_comm_ms + b.dp_comm_ms + b.bubble_ms +
              b.optimizer_ms ==
          doctest::Approx(f.step_ms));
    CHECK(f.memory.fits);
  }

  TEST_CASE("the interleaved schedule divides the bubble by the model chunks") {
    const ModelConfig m = gpt(4096, 32, 32, 2048);
    MegatronConfig c;
    c.tp = 2;
    c.pp = 4;
    c.microbatches = 8;
    const MegatronForecast one = a100(m, 8, 2048, c);
    c.virtual_stages = 2;
    const MegatronForecast two = a100(m, 8, 2048, c);
    // the bubble is (p - 1)/v of a micro-batch's time on the mean rank: at most the critical
    // rank's (the last, which runs the head as well)
    const double per_mb_one = one.breakdown.bubble_ms / 3.0;
    const double critical =
        one.stage_forward_ms + one.stage_backward_ms + one.breakdown.pp_comm_ms / 8;
    CHECK(per_mb_one <= critical);
    CHECK(per_mb_one >= 0.8 * critical);
    CHECK(two.breakdown.bubble_ms == doctest::Approx(one.breakdown.bubble_ms / 2).epsilon(0.05));
    CHECK(two.step_ms < one.step_ms);
    // interleaving keeps more activations on the first rank: L (1 + (p - 1)/(p v))
    CHECK(two.memory.activations_gb > one.memory.activations_gb);
  }

  TEST_CASE("a pipeline that does not divide the layers is accepted") {
    MegatronConfig c;
    c.tp = 8;
    c.pp = 5;
    c.microbatches = 10;
    const MegatronForecast f = a100(gpt(6144, 48, 64, 2048), 10, 2048, c);
    int sum = 0;
    for (int n : f.layers_per_stage) sum += n;
    CHECK(sum == 48);
    CHECK(f.step_ms > 0);
    CHECK(f.config.gpus() == 40);
  }

  TEST_CASE("FlashAttention follows the generation's published efficiency and the roofline") {
    const GpuSpec& a = find_gpu("a100-80gb-sxm");
    const GpuSpec& h = find_gpu("h100-sxm");
    const double flops = 1e12, bytes = 1e8;
    const auto fa2 = detail::flash_attention_time(a, DataType::bf16, flops, bytes, 1e9, false);
    CHECK(fa2.kernel == "FlashAttention-2");
    CHECK(fa2.efficiency == doctest::Approx(0.73).epsilon(1e-6));
    const auto fa3 = detail::flash_attention_time(h, DataType::bf16, flops, bytes, 1e9, false);
    CHECK(fa3.kernel == "FlashAttention-3");
    CHECK(fa3.ms < fa2.ms);
    const auto back = detail::flash_attention_time(a, DataType::bf16, flops, bytes, 1e9, true);
    CHECK(back.ms > fa2.ms);
    const auto short_seq =
        detail::flash_attention_time(a, DataType::bf16, flops, bytes, 512, false);
    CHECK(short_seq.ms > fa2.ms);
    // never faster than the roofline of its bytes
    const auto io = detail::flash_attention_time(a, DataType::bf16, 1, 2.039e12, 1e9, false);
    CHECK(io.ms >= 1000.0 * 0.999);
    CHECK_THROWS_WITH_AS(detail::flash_attention_time(find_gpu("v100-sxm"), DataType::fp16, flops,
                                                      bytes, 2048, false),
                         doctest::Contains("fused-softmax"), Error);
  }

  TEST_CASE("bad configurations are errors naming what would work") {
    const ModelConfig m = gpt(6144, 48, 64, 2048);
    MegatronConfig c;
    c.tp = 5;
    CHECK_THROWS_WITH_AS(a100(m, 4, 2048, c), doctest::Contains("valid tp"), Error);
    c.tp = 8;
    c.microbatches = 3;
    CHECK_THROWS_WITH_AS(a100(m, 4, 2048, c), doctest::Contains("valid microbatches"), Error);
    c.microbatches = 1;
    c.virtual_stages = 2;
    CHECK_THROWS_WITH_AS(a100(m, 4, 2048, c), doctest::Contains("needs pp >= 2"), Error);
    c.virtual_stages = 1;
    c.pp = 64;
    CHECK_THROWS_WITH_AS(a100(m, 64, 2048, c), doctest::Contains("model chunks"), Error);
    c.pp = 1;
    c.sequence_parallel = true;
    CHECK_THROWS_WITH_AS(a100(m, 4, 2044, c), doctest::Contains("multiple of tp"), Error);
    c.sequence_parallel = false;
    CHECK_THROWS_WITH_AS(
        forecast_megatron(find_gpu("a100-80gb-sxm"), find_system("dgx-a100"), m,
                          bf16_training(4, 2048, DataType::fp8), c, Predictor::tilecast),
        doctest::Contains("fp8"), Error);
    c.dp = 1000;
    CHECK_THROWS_WITH_AS(a100(m, 1000, 2048, c), doctest::Contains("max_nodes"), Error);
  }

  TEST_CASE("the API's megatron fields and the contract's outputs") {
    const nlohmann::json req = {{"gpu", "h100-sxm"},
                                {"model", "llama3-8b"},
                                {"batch", 64},
                                {"seq", 4096},
                                {"mode", "training"},
                                {"engine", "megatron"},
                                {"precision", "bf16"},
                                {"gpus", 16},
                                {"tp", 2},
                                {"pp", 2},
                                {"microbatches", 8},
                                {"virtual_stages", 2},
                                {"sequence_parallel", true},
                                {"recompute", "selective"},
                                {"tokens", 1e12}};
    const std::string text = api::forecast_model(req.dump());
    const nlohmann::json j = nlohmann::json::parse(text);
    for (const char* k : {"step_ms", "tokens_per_s", "model_tflops_per_gpu", "mfu", "hfu",
                          "train_days", "layer_forward_ms"})
      CHECK(j[k].get<double>() > 0);
    CHECK(j["mfu"].get<double>() < 1);
    CHECK(j["memory"]["fits"].is_boolean());
    CHECK(j["parallel"]["dp"] == 4);
    CHECK(j["engine"] == "megatron");
    CHECK(text == api::forecast_model(req.dump()));  // deterministic
    nlohmann::json bad = req;
    bad["sequence_parallel"] = "yes";
    CHECK_THROWS_WITH_AS(api::forecast_model(bad.dump()), doctest::Contains("'sequence_parallel'"),
                         Error);
    bad = req;
    bad["zero"] = 1;
    CHECK_THROWS_WITH_AS(api::forecast_model(bad.dump()),
                         doctest::Contains("distributed_optimizer"), Error);
    bad = req;
    bad["attention"] = "paged";
    CHECK_THROWS_WITH_AS(api::forecast_model(bad.dump()), doctest::Contains("fused-softmax"),
                         Error);
  }

  TEST_CASE(
      "fp8 as TransformerEngine runs it: faster than bf16, by less than 2x; refused "
      "without FP8 units") {
    // GPT 22B (Korthikanti's shape) on 8 H100, TP 8: GEMM-heavy
    const ModelConfig m = gpt(6144, 48, 64, 2048);
    MegatronConfig c;
    c.tp = 8;
    c.microbatches = 4;
    c.sequence_parallel = true;
    c.recompute = Recompute::selective;
    const GpuSpec& h100 = find_gpu("h100-sxm");
    const SystemSpec dgx = find_system("dgx-h100");
    const MegatronForecast bf16 =
        forecast_megatron(h100, dgx, m, bf16_training(16, 2048), c, Predictor::tilecast);
    const MegatronForecast fp8 = forecast_megatron(
        h100, dgx, m, bf16_training(16, 2048, DataType::fp8), c, Predictor::tilecast);
    INFO("bf16 step " << bf16.step_ms << " ms, fp8 " << fp8.step_ms << " ms");
    CHECK(fp8.step_ms < bf16.step_ms);
    CHECK(fp8.step_ms > bf16.step_ms / 2);  // only the GEMMs speed up, and the casts cost
    CHECK(fp8.layer_forward_ms < bf16.layer_forward_ms);
    // MFU against the BF16 dense peak, as Megatron-LM and NeMo report it
    CHECK(fp8.peak_tflops == bf16.peak_tflops);
    CHECK(fp8.peak_tflops == h100.peak_tflops_of(DataType::bf16, ComputeUnit::tensor));
    CHECK(fp8.mfu == doctest::Approx(bf16.mfu * bf16.step_ms / fp8.step_ms));
    // the FP8 weight copies and transposes cost memory; FP32 master weights as before
    CHECK(fp8.memory.weights_gb > bf16.memory.weights_gb);
    CHECK(fp8.memory.optimizer_gb == bf16.memory.optimizer_gb);
    bool said = false;
    for (const std::string& a : fp8.assumptions)
      said = said || (a.find("TransformerEngine") != std::string::npos &&
                      a.find("cast") != std::string::npos);
    CHECK(said);
    // the FP8 GEMMs' kernels and the casts are in the layer's pass
    detail::MegatronDims d;
    d.micro_batch = 1;
    d.seq = 2048;
    d.tp = 8;
    d.dtype = DataType::fp8;
    const detail::MegatronPass p = detail::megatron_layer(detail::megatron_shape(m), d);
    int fp8_gemms = 0, casts = 0;
    for (const auto* pass : {&p.forward, &p.backward})
      for (const detail::MegatronItem& it : *pass) {
        if (!it.is_comm && it.kind == OpKind::gemm && it.kernel.dtype == DataType::fp8) ++fp8_gemms;
        if (it.name.find("fp8 cast") != std::string::npos) ++casts;
      }
    CHECK(fp8_gemms == 12);  // 4 linears x (forward, dgrad, wgrad)
    CHECK(casts == 8);       // each forward's input and each dgrad's output gradient
    CHECK(p.fp8_params > 0);
    // an A100 has no FP8 tensor cores: the error names it and the catalog GPUs that have them
    CHECK_THROWS_WITH_AS(
        forecast_megatron(find_gpu("a100-80gb-sxm"), find_system("dgx-a100"), m,
                          bf16_training(16, 2048, DataType::fp8), c, Predictor::tilecast),
        doctest::Contains("has no fp8 units"), Error);
    try {
      (void)forecast_megatron(find_gpu("a100-80gb-sxm"), find_system("dgx-a100"), m,
                              bf16_training(16, 2048, DataType::fp8), c, Predictor::tilecast);
    } catch (const Error& e) {
      const std::string what = e.what();
      CHECK(what.find("NVIDIA A100") != std::string::npos);
      for (const char* arch : {"Hopper", "Ada", "Blackwell", "CDNA 3"})
        CHECK(what.find(arch) != std::string::npos);
      CHECK(what.find("h100-sxm") != std::string::npos);
    }
    // MI300X trains in FP8 too (CDNA 3 has FP8 matrix cores)
    const MegatronForecast mi =
        forecast_megatron(find_gpu("mi300x"), find_system("mi300x-8x"), m,
                          bf16_training(16, 2048, DataType::fp8), c, Predictor::tilecast);
    CHECK(std::isfinite(mi.step_ms));
    CHECK(mi.step_ms > 0);
  }
}

TEST_SUITE("megatron published") {
  // Korthikanti et al. 2022 (../shared/data/published/korthikanti-2022.json), forecast as the
  // paper ran it; the targets of issue 28. `tilecast eval-published` prints the same figures.
  TEST_CASE("Korthikanti et al. 2022: per-layer and iteration times, MFU, memory") {
    const std::string path = test::data_dir() + "/../published/korthikanti-2022.json";
    REQUIRE(test::file_exists(path));
    const PublishedReport r = evaluate_published(test::read_file(path), path);
    CHECK(r.rows.size() == 17);
    CHECK(r.table5_rows == 9);
    CHECK(r.mfu_rows == 8);
    CHECK(r.table4_max_abs_error_pct <= 10);
    CHECK(r.table5_max_abs_error_pct <= 10);
    CHECK(r.table5_mae_pct <= 6);
    CHECK(r.mfu_max_abs_error_points <= 3);
    CHECK(r.all_fit);
    MESSAGE("Table 4 max " << r.table4_max_abs_error_pct << "%, iterations max "
                           << r.table5_max_abs_error_pct << "% MAE " << r.table5_mae_pct
                           << "%, MFU max " << r.mfu_max_abs_error_points << " points");
  }
}
