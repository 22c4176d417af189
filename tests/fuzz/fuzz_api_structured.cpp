// libFuzzer harness that builds well-formed requests from the fuzzer's bytes: the catalog's
// GPUs, the zoo's models and the systems by name or as inline objects (the repo's files, a
// field now and then replaced by an extreme value), and each documented request field with a
// plausible or a hostile value (0, -1, 2^31, 65536, 1e300, a string, null, an array). This
// reaches the forecast paths a raw JSON mutator rarely gets past the validators to.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "api_calls.hpp"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<json> read_dir(const fs::path& dir) {
  std::vector<json> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (j.is_object()) out.push_back(std::move(j));
  }
  return out;
}

struct Pools {
  std::vector<json> gpus, models, systems;
  std::vector<std::string> gpu_ids, model_ids, system_ids;
  Pools() {
    const fs::path root = TILECAST_REPO_DIR;
    gpus = read_dir(root / "gpu_catalog");
    models = read_dir(root / "model_zoo");
    systems = read_dir(root / "gpu_catalog" / "systems");
    for (const auto& g : json::parse(tilecast::api::list_gpus())) gpu_ids.push_back(g["id"]);
    for (const auto& m : json::parse(tilecast::api::list_models())) model_ids.push_back(m["id"]);
    for (const auto& s : json::parse(tilecast::api::list_systems())) system_ids.push_back(s["id"]);
  }
};

const Pools& pools() {
  static const Pools p;
  return p;
}

// Integers at and around the validators' edges and the sizes that broke things before.
constexpr std::int64_t kEdges[] = {0,      1,       2,          3,          4,
                                   7,      8,       12,         64,         100,
                                   1000,   4096,    65535,      65536,      65537,
                                   100000, 1000000, 2147483647, 2147483648, 4294967296,
                                   -1,     -65536,  1LL << 40,  1LL << 53,  9223372036854775807};

json number(FuzzedDataProvider& in, std::int64_t lo, std::int64_t hi) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return in.PickValueInArray(kEdges);
    case 1: return in.ConsumeFloatingPoint<double>();
    case 2: return json();  // null
    case 3: return "12";    // a string
    case 4: return json::array({1});
    default: return in.ConsumeIntegralInRange<std::int64_t>(lo, hi);
  }
}

json word(FuzzedDataProvider& in, std::initializer_list<const char*> words) {
  const int pick = in.ConsumeIntegralInRange<int>(0, int(words.size()) + 1);
  if (pick < int(words.size())) return *(words.begin() + pick);
  if (pick == int(words.size())) return in.ConsumeIntegral<int>();
  return in.ConsumeRandomLengthString(16);
}

// A repo file's object with one numeric field replaced by an edge value, now and then.
json mutated(FuzzedDataProvider& in, json j) {
  if (!in.ConsumeBool()) return j;
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items())
    if (v.is_number()) keys.push_back(k);
  if (keys.empty()) return j;
  const std::string& k = keys[in.ConsumeIntegralInRange<std::size_t>(0, keys.size() - 1)];
  j[k] = number(in, 0, 200000);
  return j;
}

json pick_named(FuzzedDataProvider& in, const std::vector<std::string>& ids,
                const std::vector<json>& files) {
  if (ids.empty() || in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    if (files.empty()) return "?";
    return mutated(in, files[in.ConsumeIntegralInRange<std::size_t>(0, files.size() - 1)]);
  }
  return ids[in.ConsumeIntegralInRange<std::size_t>(0, ids.size() - 1)];
}

json gpu(FuzzedDataProvider& in) { return pick_named(in, pools().gpu_ids, pools().gpus); }
json model(FuzzedDataProvider& in) { return pick_named(in, pools().model_ids, pools().models); }
json system(FuzzedDataProvider& in) { return pick_named(in, pools().system_ids, pools().systems); }

// Adds `field` with probability ~3/4.
template <class F>
void maybe(FuzzedDataProvider& in, json& req, const char* field, F make) {
  if (in.ConsumeIntegralInRange<int>(0, 3) != 0) req[field] = make();
}

json kernel_request(FuzzedDataProvider& in) {
  json r;
  r["gpu"] = gpu(in);
  r["op"] = word(in, {"linear", "bmm", "add", "mul", "gelu", "softmax", "ln", "rmsnorm", "silu",
                      "rotary", "embedding", "copy"});
  json dims = json::array();
  const int n = in.ConsumeIntegralInRange<int>(0, 5);
  for (int i = 0; i < n; ++i) dims.push_back(number(in, 1, 1 << 16));
  r["dims"] = dims;
  maybe(in, r, "precision", [&] {
    return word(in, {"fp32", "tf32", "fp16", "bf16", "fp8", "int8"});
  });
  maybe(in, r, "predictor", [&] { return word(in, {"tilecast", "roofline"}); });
  return r;
}

json model_request(FuzzedDataProvider& in) {
  json r;
  r["gpu"] = gpu(in);
  r["model"] = model(in);
  maybe(in, r, "batch", [&] { return number(in, 1, 64); });
  maybe(in, r, "seq", [&] { return number(in, 1, 4096); });
  maybe(in, r, "mode", [&] { return word(in, {"inference", "training", "prefill", "decode"}); });
  maybe(in, r, "precision", [&] { return word(in, {"fp32", "bf16", "fp16"}); });
  maybe(in, r, "predictor", [&] { return word(in, {"tilecast", "roofline"}); });
  if (in.ConsumeBool()) {
    maybe(in, r, "engine", [&] { return word(in, {"eager", "compiled", "fused"}); });
    maybe(in, r, "context", [&] { return number(in, 1, 8192); });
  } else {  // multi-GPU training
    maybe(in, r, "gpus", [&] { return number(in, 1, 64); });
    maybe(in, r, "dp", [&] { return number(in, 1, 8); });
    maybe(in, r, "tp", [&] { return number(in, 1, 8); });
    maybe(in, r, "pp", [&] { return number(in, 1, 8); });
    maybe(in, r, "microbatches", [&] { return number(in, 1, 64); });
    maybe(in, r, "zero", [&] { return number(in, 0, 3); });
    maybe(in, r, "recompute", [&] { return word(in, {"none", "selective", "full"}); });
    maybe(in, r, "schedule", [&] { return word(in, {"1f1b", "gpipe"}); });
    maybe(in, r, "bucket_mb", [&] { return number(in, 1, 100); });
    maybe(in, r, "system", [&] { return system(in); });
  }
  return r;
}

// A ratio in [0, 1) now and then, else a hostile number (edges, null, a string, an array).
json fraction(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return in.ConsumeFloatingPointInRange<double>(0, 1);
  return number(in, 0, 1);
}

// The serving options a static batch, a simulation and a capacity plan share.
void serving_options(FuzzedDataProvider& in, json& r) {
  maybe(in, r, "precision", [&] { return word(in, {"bf16", "fp16", "fp32", "fp8", "fp4"}); });
  maybe(in, r, "kv_cache", [&] { return word(in, {"fp8", "bf16"}); });
  maybe(in, r, "weights", [&] { return word(in, {"native", "int8", "int4"}); });
  maybe(in, r, "decode_attention", [&] { return word(in, {"grouped", "per-query-head"}); });
  maybe(in, r, "predictor", [&] { return word(in, {"tilecast", "roofline"}); });
}

// A simulation's fields. Sizes that set its work (requests, clients, lengths) stay small: the
// work budget holds a request to about a second natively, far more under the sanitizers.
void load_fields(FuzzedDataProvider& in, json& r) {
  if (in.ConsumeBool())
    r["qps"] = in.ConsumeBool() ? json(in.ConsumeFloatingPointInRange<double>(0.01, 100))
                                : number(in, 1, 100);
  else
    r["concurrency"] = in.ConsumeIntegralInRange<int>(-1, 64);
  r["requests"] = in.ConsumeIntegralInRange<int>(-1, 64);
  maybe(in, r, "seed", [&] { return number(in, 0, 1000); });
  maybe(in, r, "range_ratio", [&] { return fraction(in); });
  maybe(in, r, "scheduler", [&] { return word(in, {"continuous", "no-evict", "static"}); });
  maybe(in, r, "batch_limits", [&] { return word(in, {"fixed", "trtllm-bench"}); });
  maybe(in, r, "max_batch_tokens", [&] { return number(in, 1, 8192); });
  maybe(in, r, "max_seqs", [&] { return number(in, 1, 256); });
  maybe(in, r, "slo_ttft_ms", [&] { return number(in, 1, 1000); });
  maybe(in, r, "slo_tpot_ms", [&] { return number(in, 1, 100); });
}

json serving_request(FuzzedDataProvider& in) {
  json r;
  r["gpu"] = gpu(in);
  r["model"] = model(in);
  const bool load = in.ConsumeIntegralInRange<int>(0, 3) == 0;
  r["prompt"] = load ? json(in.ConsumeIntegralInRange<int>(0, 512)) : number(in, 1, 8192);
  r["output"] = load ? json(in.ConsumeIntegralInRange<int>(0, 64)) : number(in, 1, 4096);
  if (!load) maybe(in, r, "batch", [&] { return number(in, 1, 256); });
  maybe(in, r, "tp", [&] { return number(in, 1, 8); });
  maybe(in, r, "engine", [&] { return word(in, {"fused", "eager", "compiled"}); });
  serving_options(in, r);
  if (load) load_fields(in, r);
  return r;
}

// A capacity plan: one GPU or a few, a rate and the two SLOs, at most 8 GPUs (its work: a
// simulation per GPU, TP size and bisection step).
json capacity_request(FuzzedDataProvider& in) {
  json r;
  if (in.ConsumeBool()) {
    r["gpu"] = gpu(in);
  } else {
    r["gpu"] = json::array();
    for (int i = in.ConsumeIntegralInRange<int>(0, 3); i > 0; --i) r["gpu"].push_back(gpu(in));
  }
  r["model"] = model(in);
  r["prompt"] = in.ConsumeIntegralInRange<int>(0, 512);
  r["output"] = in.ConsumeIntegralInRange<int>(0, 32);
  r["requests"] = in.ConsumeIntegralInRange<int>(-1, 32);
  r["qps"] = number(in, 1, 50);
  r["slo_ttft_ms"] = number(in, 1, 2000);
  r["slo_tpot_ms"] = number(in, 1, 200);
  r["max_gpus"] = in.ConsumeIntegralInRange<int>(-1, 8);
  maybe(in, r, "price_per_gpu_hour", [&] { return number(in, 1, 10); });
  maybe(in, r, "range_ratio", [&] { return fraction(in); });
  maybe(in, r, "scheduler", [&] { return word(in, {"continuous", "no-evict", "static"}); });
  serving_options(in, r);
  return r;
}

json collective_request(FuzzedDataProvider& in) {
  json r;
  r["system"] = system(in);
  r["collective"] =
      word(in, {"all_reduce", "reduce_scatter", "all_gather", "send_recv", "all_to_all"});
  r["bytes"] = number(in, 1, 1LL << 34);
  r["gpus"] = number(in, 2, 1024);
  maybe(in, r, "gpus_per_node", [&] { return number(in, 1, 16); });
  maybe(in, r, "algorithm", [&] { return word(in, {"auto", "ring", "tree", "nvls"}); });
  return r;
}

json plan_request(FuzzedDataProvider& in) {
  json r;
  r["system"] = system(in);
  r["model"] = model(in);
  r["global_batch"] = number(in, 1, 256);
  maybe(in, r, "seq", [&] { return number(in, 1, 2048); });
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) r["gpu"] = gpu(in);
  maybe(in, r, "gpus", [&] { return number(in, 1, 16); });
  maybe(in, r, "max_microbatches", [&] { return number(in, 1, 16); });
  maybe(in, r, "predictor", [&] { return word(in, {"tilecast", "roofline"}); });
  maybe(in, r, "precision", [&] { return word(in, {"fp32", "bf16", "fp16"}); });
  maybe(in, r, "top", [&] { return number(in, 1, 50); });
  return r;
}

static_assert(tilecast::fuzz::kApiCallCount == 9, "one request builder per API call below");

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tilecast::fuzz;
  FuzzedDataProvider in(data, size);
  const int which = in.ConsumeIntegralInRange<int>(0, int(kApiCallCount) - 1);
  json req;
  switch (which) {
    case 0: req = kernel_request(in); break;
    case 1: req = model_request(in); break;
    case 2: req = serving_request(in); break;
    case 3: req = collective_request(in); break;
    case 4: req = plan_request(in); break;
    case 5: req = mutated(in, gpu(in)); break;
    case 6: req = mutated(in, model(in)); break;
    case 7: req = mutated(in, system(in)); break;
    default: req = capacity_request(in); break;
  }
  // random words may not be UTF-8: replaced, as the page's JSON.stringify would never send them
  const std::string text = req.dump(-1, ' ', false, json::error_handler_t::replace);
  // triage: TILECAST_FUZZ_PRINT=1 ./fuzz_api_structured UNIT prints the request an input builds
  static const bool print = std::getenv("TILECAST_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "%s %s\n", kApiCalls[which].name, text.c_str());
  call_and_check(kApiCalls[which], text);
  return 0;
}
