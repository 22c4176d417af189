// The JSON-text API shared by the CLI's --json output and the WASM binding, so
// both front ends return the same numbers from the same code. Every function
// throws tilecast::Error with a message naming the offending field.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace tilecast::api {

// The embedded GPU catalog: a JSON array of specs in the gpu_catalog format.
std::string list_gpus();

// Validates a GPU spec (catalog or dataset format); returns it normalised.
std::string validate_gpu(std::string_view spec_json);

// {"gpu": NAME | {spec}, "op": "linear", "dims": [1,1024,1024,1024],
//  "precision": "fp32" (default) | "tf32" | "fp16" | "bf16" | "fp8" | "int8",
//  "predictor": "tilecast"|"roofline"} -> the kernel forecast as JSON (naming its precision).
// The learned predictor has FP32 models (NVIDIA, AMD) and FP16/BF16 models (NVIDIA); for other
// precisions (and FP16/BF16 on AMD) it is an error naming "predictor": "roofline".
std::string forecast_kernel(std::string_view request_json);

// The embedded model zoo: [{"id","name","architecture","model_type",...}].
std::string list_models();

// Validates a Hugging Face config.json; returns {"ok":true,"architecture":...,...}.
std::string validate_model(std::string_view config_json);

// {"gpu": NAME | {spec}, "model": NAME | {HF config}, "batch": 1, "seq": 2048,
//  "mode": "training"|"inference"|"prefill"|"decode" (also "train", "inf"; default
//  inference), "context": N (decode only: the cache length, default seq),
//  "predictor": "tilecast"|"roofline", "precision": "fp32" (default) | "bf16" | "fp16",
//  "engine": "eager" (default) | "compiled" (torch.compile, docs/fusion.md)}
// seq is the sequence length (prefill: the prompt). precision: fp32 is eager FP32; bf16/fp16 in
// training is an autocast mixed-precision step (half-type GEMMs on tensor cores, the rest FP32,
// FP32 master weights, weight/input casts; docs/mixed-precision.md), in the other modes the whole
// pass in the type. A GPU without the type is an error naming its precisions. The response names
// it ("precision", and workload.precision). Decode forecasts one new token
// per sequence attending to `context` cached tokens and itself. Prefill and decode
// need a decoder-only model (not BERT or Switch).
// -> the whole-model forecast as JSON (fields: model_forecast_to_json in model_forecast.hpp;
// docs/model-forecast.md).
std::string forecast_model(std::string_view request_json);

// {"gpu": NAME | {spec}, "model": NAME | {HF config}, "prompt": N, "output": N, "batch": 1,
//  "tp": 1, "precision": "bf16" (default) | "fp16" | "fp32", "engine": "fused" (default) |
//  "eager", "predictor": "tilecast" | "roofline"}
// -> {"prefill_ms","decode_ms_per_token","decode_ms_at":{cached tokens: ms},"decode_total_ms",
//     "total_ms","tokens_per_s","comm_ms","kv_cache_bytes_per_token","memory":{"weights_gb",
//     "kv_cache_gb","activations_gb","context_gb","total_gb","capacity_gb","fits"},"max_batch",
//     "max_context","caveats",...} (tilecast/serving.hpp, docs/serving.md).
// With "qps": R (Poisson) or "concurrency": C (closed loop) and "requests": N, or "trace": text
// (CSV or JSON; "trace_name" for errors), plus optional "seed", "slo_ttft_ms", "slo_tpot_ms",
// "max_batch_tokens", "max_seqs", "scheduler": "continuous"|"static" (no "batch"): a simulation
// under load -> {"ttft_ms","tpot_ms","e2e_ms" each {"p50","p90","p99","mean"},
// "output_tokens_per_s","requests_per_s","slo",...,"kv_use","caveats"}
// (tilecast/serving_load.hpp, docs/serving-load.md).
std::string forecast_serving(std::string_view request_json);

}  // namespace tilecast::api

namespace tilecast::api {

// The embedded systems (gpu_catalog/systems/): a JSON array of system specs, each with
// its GPU's catalog links under "gpu_interconnect".
std::string list_systems();

// Validates a system spec (docs/comm.md); returns it normalised (bandwidths filled in).
std::string validate_system(std::string_view system_json);

// {"system": NAME | {system spec}, "collective": "all_reduce"|"reduce_scatter"|"all_gather"|
//  "send_recv"|"all_to_all", "bytes": N (per GPU, see CollectiveRequest), "gpus": N,
//  "gpus_per_node": N (optional: fill nodes), "algorithm": "auto"|"ring"|"tree"}
// -> {"time_ms","latency_ms","transfer_ms","algorithm","steps","bytes_factor","link",
//     "path_bw_gbps","efficiency","bus_bw_gbps","nodes","gpus_per_node","calibration",
//     "calibrated","system","collective","bytes","gpus"} (tilecast/comm.hpp, docs/comm.md).
std::string forecast_collective(std::string_view request_json);

}  // namespace tilecast::api

namespace tilecast::api {

// {"system": NAME | {system spec}, "model": NAME | {HF config}, "global_batch": B,
//  "seq": N (default min(the model's positions, 2048)), "gpu": NAME | {spec} (default the
//  system's GPU), "gpus": N (default every power of two up to one node), "max_microbatches": 64,
//  "predictor": "tilecast"|"roofline", "top": 20}
// -> {"considered","does_not_divide","does_not_fit","fitting","by_step":[...],
//     "by_tokens_per_gpu":[...]} each entry {"dp","tp","pp","microbatches","zero","recompute",
//     "step_ms","tokens_per_s","tokens_per_s_per_gpu","bubble_fraction","memory_gb",
//     "capacity_gb"} (tilecast/parallel.hpp, docs/parallel.md "Plan").
std::string plan_parallel(std::string_view request_json);

}  // namespace tilecast::api

namespace tilecast::api {

// {"gpu": NAME | {spec} | [NAME | {spec}, ...], "model": NAME | {HF config}, "qps": R,
//  "slo_ttft_ms": X, "slo_tpot_ms": Y, "prompt": P, "output": O (or "trace": text),
//  "requests": 1000 (per simulation), "precision", "predictor", "seed", "max_gpus": 64,
//  "price_per_gpu_hour": $ | [$ per GPU]}
// -> {"best": option | null, "options": [{"gpu","tp","meets","replicas","gpus","ttft_p99_ms",
//     "tpot_p99_ms","tokens_per_gpu_hour","price_per_hour","tokens_per_dollar" | "why"}],
//     "simulations","caveats",...} (tilecast/capacity.hpp, docs/serving-load.md "Capacity").
std::string plan_capacity(std::string_view request_json);
// The same, calling `progress` with a line after each simulation (the CLI's stderr).
std::string plan_capacity_with_progress(std::string_view request_json,
                                        const std::function<void(const std::string&)>& progress);

}  // namespace tilecast::api
