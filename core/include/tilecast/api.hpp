// The JSON-text API shared by the CLI's --json output and the WASM binding, so
// both front ends return the same numbers from the same code. Every function
// throws tilecast::Error with a message naming the offending field. What each returns is
// written once, as a JSON Schema in core/schema/ (api.schema.json maps each call to its file;
// ctest "response_schemas" checks the answers against them).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace tilecast::api {

// The embedded GPU catalog: a JSON array of specs (core/schema/gpus.schema.json).
std::string list_gpus();

// Validates a GPU spec (catalog or dataset format); returns it normalised (gpu.schema.json).
std::string validate_gpu(std::string_view spec_json);

// {"gpu": NAME | {spec}, "op": "linear", "dims": [1,1024,1024,1024],
//  "precision": "fp32" (default) | "tf32" | "fp16" | "bf16" | "fp8" | "int8",
//  "predictor": "tilecast"|"roofline"} -> the kernel forecast (kernel_forecast.schema.json).
// The learned predictor has FP32 models (NVIDIA, AMD) and FP16/BF16 models (NVIDIA); for other
// precisions (and FP16/BF16 on AMD) it is an error naming "predictor": "roofline".
std::string forecast_kernel(std::string_view request_json);

// The embedded model zoo (models.schema.json).
std::string list_models();

// Validates a Hugging Face config.json; returns what was read (model_validation.schema.json).
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
// -> the whole-model forecast (model_forecast.schema.json; docs/model-forecast.md), or with
// parallel fields a multi-GPU training step (parallel_forecast.schema.json; docs/parallel.md).
std::string forecast_model(std::string_view request_json);

// {"gpu": NAME | {spec}, "model": NAME | {HF config}, "prompt": N, "output": N, "batch": 1,
//  "tp": 1, "precision": "bf16" (default) | "fp16" | "fp32", "engine": "fused" (default) |
//  "eager", "predictor": "tilecast" | "roofline"}
// -> the serving forecast (serving_forecast.schema.json; tilecast/serving.hpp, docs/serving.md).
// With "qps": R (Poisson) or "concurrency": C (closed loop) and "requests": N, or "trace": text
// (CSV or JSON; "trace_name" for errors), plus optional "seed", "slo_ttft_ms", "slo_tpot_ms",
// "max_batch_tokens", "max_seqs", "scheduler": "continuous"|"static" (no "batch"): a simulation
// under load (serving_load.schema.json; tilecast/serving_load.hpp, docs/serving-load.md).
std::string forecast_serving(std::string_view request_json);

}  // namespace tilecast::api

namespace tilecast::api {

// The embedded systems (gpu_catalog/systems/): a JSON array of system specs, each with
// its GPU's catalog links under "gpu_interconnect" (systems.schema.json).
std::string list_systems();

// Validates a system spec (docs/comm.md); returns it normalised (bandwidths filled in;
// system.schema.json).
std::string validate_system(std::string_view system_json);

// {"system": NAME | {system spec}, "collective": "all_reduce"|"reduce_scatter"|"all_gather"|
//  "send_recv"|"all_to_all", "bytes": N (per GPU, see CollectiveRequest), "gpus": N,
//  "gpus_per_node": N (optional: fill nodes), "algorithm": "auto"|"ring"|"tree"|"nvls"}
// -> the collective's forecast (collective_forecast.schema.json; tilecast/comm.hpp, docs/comm.md).
std::string forecast_collective(std::string_view request_json);

}  // namespace tilecast::api

namespace tilecast::api {

// {"system": NAME | {system spec}, "model": NAME | {HF config}, "global_batch": B,
//  "seq": N (default min(the model's positions, 2048)), "gpu": NAME | {spec} (default the
//  system's GPU), "gpus": N (default every power of two up to one node), "max_microbatches": 64,
//  "predictor": "tilecast"|"roofline", "top": 20}
// -> the configurations that fit, ranked two ways (plan.schema.json; tilecast/parallel.hpp,
// docs/parallel.md "Plan").
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

// {"id": "amd-fp32", "files": {"weights": TEXT, "tile_table": TEXT}}: the files (role -> the
// file's text, byte for byte as in core/data/models/<id>/) of a learned model this build does
// not embed, named by a failed call's ModelNotLoaded (the WASM envelope's "missing_model"; the
// web build serves them as models/<id>.json, in this request's shape). Registered for the rest
// of the process, so forecasts are those of a build embedding it. Every role of the manifest,
// no other; an embedded model's files are ignored. -> {"id", "files": [roles]}
// (model_load.schema.json).
std::string load_model(std::string_view request_json);

}  // namespace tilecast::api
