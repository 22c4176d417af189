// LoRA / QLoRA fine-tuning (issue 32 item 9): a training step whose base weights are frozen
// (no weight-gradient GEMMs, no gradients or Adam states for them) with low-rank adapters
// beside the target linears; QLoRA's NF4 weights, dequantized before each use.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {

// Llama-2 7B training on one A100 80GB in BF16 (autocast), batch 4, seq 2048.
nlohmann::json lora_request(const nlohmann::json& finetune) {
  nlohmann::json r = {{"gpu", "a100-80gb-sxm"}, {"model", "llama2-7b"}, {"batch", 4}, {"seq", 2048},
                      {"mode", "training"},     {"precision", "bf16"}};
  if (!finetune.is_null()) r["finetune"] = finetune;
  return r;
}

nlohmann::json lora_answer(const nlohmann::json& finetune) {
  return nlohmann::json::parse(api::forecast_model(lora_request(finetune).dump()));
}

std::string lora_error(const nlohmann::json& req) {
  const std::string e = test::error_of([&] { (void)api::forecast_model(req.dump()); });
  return e.empty() ? "no error" : e;
}

}  // namespace

TEST_SUITE("lora") {
  TEST_CASE("LoRA is faster than full training and needs far less memory; QLoRA less still") {
    const auto full = lora_answer(nullptr);
    const auto lora = lora_answer({{"method", "lora"}});
    const auto qlora = lora_answer({{"method", "qlora"}});
    CHECK_FALSE(full.contains("finetune"));
    // no weight-gradient GEMMs for the frozen linears: the backward is lighter
    CHECK(lora["backward_ms"].get<double>() < 0.8 * full["backward_ms"].get<double>());
    CHECK(lora["latency_ms"].get<double>() < full["latency_ms"].get<double>());
    // no gradients or Adam states for 6.7B parameters: tens of GB less
    const double full_gb = full["memory"]["total_gb"], lora_gb = lora["memory"]["total_gb"];
    const double qlora_gb = qlora["memory"]["total_gb"];
    CHECK(full_gb - lora_gb > 60);
    CHECK(lora["memory"]["optimizer_gb"].get<double>() < 1);
    // NF4 weights: about a quarter of the 16-bit weights' bytes
    CHECK(qlora_gb < lora_gb);
    CHECK(qlora["memory"]["weights_gb"].get<double>() <
          0.5 * lora["memory"]["weights_gb"].get<double>());
    // the dequantization before each use costs time
    CHECK(qlora["latency_ms"].get<double>() > lora["latency_ms"].get<double>());
    CHECK(qlora["finetune"]["assumptions"].size() > lora["finetune"]["assumptions"].size());
  }

  TEST_CASE("the adapters hold r x (d_in + d_out) parameters per adapted linear") {
    // Llama-2 7B: q, k, v, o are 4096 x 4096 in 32 layers: 128 linears of d_in + d_out = 8192
    const auto r16 = lora_answer({{"method", "lora"}, {"rank", 16}});
    const auto r64 = lora_answer({{"method", "lora"}, {"rank", 64}});
    CHECK(r16["finetune"]["adapted_linears"] == 128);
    CHECK(r16["finetune"]["trainable_params"].get<double>() == 16.0 * 8192 * 128);  // 16.8M
    CHECK(r64["finetune"]["trainable_params"].get<double>() == 64.0 * 8192 * 128);
    // frozen: every parameter of the model
    CHECK(r16["finetune"]["frozen_params"].get<double>() == 6738415616.0);
    // all_linear adds the MLP's gate, up (4096 -> 11008) and down (11008 -> 4096) projections
    const auto all = lora_answer({{"method", "lora"}, {"rank", 8}, {"targets", "all_linear"}});
    CHECK(all["finetune"]["adapted_linears"] == 7 * 32);
    CHECK(all["finetune"]["trainable_params"].get<double>() ==
          8.0 * 32 * (4 * 8192 + 3 * (4096 + 11008)));
  }

  TEST_CASE("the graph: frozen linears keep only their input-gradient GEMM") {
    Workload w = make_workload(Mode::training, 1, 128);
    const ModelConfig m = find_model("llama2-7b");
    const OpGraph full = build_op_graph(m, w);
    w.finetune.method = FinetuneMethod::lora;
    const OpGraph lora = build_op_graph(m, w);
    // the MLP's three linears are frozen without adapters: 3 weight-gradient GEMMs fewer per
    // layer; the attention's four lose theirs and gain two adapters with two each
    const auto backward_gemms = [](const OpGraph& g, const std::string& section) {
      int n = 0;
      for (const auto& s : g.sections)
        if (s.name == section)
          for (const auto& o : s.ops) n += o.phase == Phase::backward && o.kind == OpKind::gemm;
      return n;
    };
    const std::string layer = lora.sections[1].name;
    CHECK(backward_gemms(lora, layer) == backward_gemms(full, layer) - 7 + 4 * 4);
    CHECK(graph_flops(lora, Phase::backward) < 0.75 * graph_flops(full, Phase::backward));
  }

  TEST_CASE("bad values name the field and what is allowed") {
    const std::string rank0 = lora_error(lora_request({{"method", "lora"}, {"rank", 0}}));
    CHECK(rank0.find("'rank'") != std::string::npos);
    CHECK(rank0.find("1 to 1024") != std::string::npos);
    const std::string method = lora_error(lora_request({{"method", "x"}}));
    CHECK(method.find("'method'") != std::string::npos);
    CHECK(method.find("lora, qlora") != std::string::npos);
    const std::string targets =
        lora_error(lora_request({{"method", "lora"}, {"targets", "mlp_only"}}));
    CHECK(targets.find("attention, all_linear") != std::string::npos);
    CHECK(lora_error(lora_request("lora")).find("must be an object") != std::string::npos);
    CHECK(lora_error(lora_request({{"method", "lora"}, {"alpha", 32}})).find("'alpha'") !=
          std::string::npos);
    auto inference = lora_request({{"method", "lora"}});
    inference["mode"] = "inference";
    CHECK(lora_error(inference).find("mode training") != std::string::npos);
    auto parallel = lora_request({{"method", "lora"}});
    parallel["gpus"] = 2;
    CHECK(lora_error(parallel).find("one GPU") != std::string::npos);
  }
}
