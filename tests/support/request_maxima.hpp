// Every numeric field of every request-taking API function (core/include/tilecast/api.hpp) at
// its validator's maximum, alone and all together (issue 33). The fields and their maxima are
// not listed here: each base request below is answered once while the parsers' reads are
// observed (detail::observe_field_reads), so the list is the parsers' own names and limits and a
// new field joins by itself. Optional fields are found from the names the parsers ask for
// (has_field), each tried once. Used by tests/work_budget_test.cpp (each answers within the
// work budget's estimate) and bench/limits_bench.cpp (each timed natively).
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/embedded_data.hpp"
#include "common/json_fields.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast::test {

using ApiCall = std::function<std::string(std::string_view)>;

struct LimitCase {
  std::string name;  // "forecast_model training: batch" ...
  ApiCall call;
  nlohmann::json request;
  std::vector<std::string> fields;  // the fields set at their maximum
};

namespace maxima_detail {

using nlohmann::json;

inline json embedded_json(std::string_view path) {
  const std::string_view text = embedded::find(path);
  if (text.empty()) throw Error("request_maxima: " + std::string(path) + " is not embedded");
  return json::parse(text);
}

// Where fields of each origin live in a request; nested objects are inline specs or a trace.
enum class Place { top, model, gpu, system, system_intra_node, system_network, trace };

struct Base {
  std::string api;
  ApiCall call;
  std::string what;           // the mode this base request exercises
  std::string top_origin;     // the origin the API names its own fields with
  json request;               // a request that answers
  std::vector<Place> nested;  // inline objects it holds (their fields at their maxima too)
};

struct Field {
  Place place;
  std::string name;
  double max = 0;
  bool integer = false;
};

inline Place place_of(const Base& b, const std::string& origin, bool& known) {
  known = true;
  if (origin == b.top_origin) return Place::top;
  if (origin == "model config") return Place::model;
  if (origin == "custom GPU") return Place::gpu;
  if (origin == "custom system") return Place::system;
  if (origin == "custom system: intra_node") return Place::system_intra_node;
  if (origin == "custom system: network") return Place::system_network;
  if (origin.rfind("trace: request ", 0) == 0) return Place::trace;
  known = false;
  return Place::top;
}

inline json value_of(const Field& f) {
  if (f.integer) return json(static_cast<long long>(f.max));
  return json(f.max);
}

// `req` with `f` at its maximum (inline objects and the trace's text edited in place).
inline void set_field(json& req, const Field& f) {
  switch (f.place) {
    case Place::top: req[f.name] = value_of(f); break;
    case Place::model: req["model"][f.name] = value_of(f); break;
    case Place::gpu: req["gpu"][f.name] = value_of(f); break;
    case Place::system: req["system"][f.name] = value_of(f); break;
    case Place::system_intra_node: req["system"]["intra_node"][f.name] = value_of(f); break;
    case Place::system_network: req["system"]["network"][f.name] = value_of(f); break;
    case Place::trace: {
      json list = json::parse(req["trace"].get<std::string>());
      for (auto& r : list) r[f.name] = value_of(f);
      req["trace"] = list.dump();
      break;
    }
  }
}

struct Observed {
  detail::FieldReads reads;
  bool answered = false;
};

inline Observed observe(const ApiCall& call, const json& req) {
  Observed o;
  detail::observe_field_reads(&o.reads);
  try {
    call(req.dump());
    o.answered = true;
  } catch (const Error&) {
  }
  detail::observe_field_reads(nullptr);
  return o;
}

inline std::vector<Base> bases() {
  const json gpt2 = embedded_json("model_zoo/gpt2.json");
  const json llama = embedded_json("model_zoo/llama3-8b.json");
  const json mixtral = embedded_json("model_zoo/mixtral-8x7b.json");
  const json h100 = embedded_json("gpu_catalog/h100-sxm.json");
  const json dgx = embedded_json("gpu_catalog/systems/dgx-h100.json");
  const json trace = json::array({{{"arrival_ms", 0}, {"prompt", 128}, {"output", 16}},
                                  {{"arrival_ms", 5}, {"prompt", 64}, {"output", 8}}});
  std::vector<Base> out;
  auto add = [&](std::string api, ApiCall call, std::string what, std::string origin, json req,
                 std::vector<Place> nested = {}) {
    out.push_back({std::move(api), std::move(call), std::move(what), std::move(origin),
                   std::move(req), std::move(nested)});
  };
  const json model = {{"gpu", h100}, {"model", gpt2}, {"batch", 2}, {"seq", 128}};
  const std::vector<Place> gm = {Place::gpu, Place::model};
  add("forecast_model", api::forecast_model, "inference", "model request", model, gm);
  json m = model;
  m["mode"] = "decode";
  m["context"] = 256;
  add("forecast_model", api::forecast_model, "decode", "model request", m, gm);
  m = model;
  m["mode"] = "training";
  add("forecast_model", api::forecast_model, "training", "model request", m, gm);
  m["engine"] = "compiled";
  add("forecast_model", api::forecast_model, "training, compiled", "model request", m, gm);
  m = model;
  m["mode"] = "training";
  m["model"] = llama;
  m["batch"] = 8;
  m["precision"] = "bf16";
  m["engine"] = "megatron";
  m["system"] = dgx;
  m["gpus"] = 8;
  m["tp"] = 2;
  m["pp"] = 2;
  m["microbatches"] = 2;
  add("forecast_model", api::forecast_model, "megatron", "model request", m,
      {Place::gpu, Place::model, Place::system});
  m = model;
  m["mode"] = "training";
  m["batch"] = 8;
  m["system"] = dgx;
  m["gpus"] = 8;
  m["tp"] = 2;
  m["pp"] = 2;
  m["microbatches"] = 2;
  m["zero"] = 1;
  m["bucket_mb"] = 25;
  add("forecast_model", api::forecast_model, "multi-GPU", "model request", m,
      {Place::gpu, Place::model, Place::system});
  m = model;
  m["model"] = mixtral;
  m["precision"] = "bf16";
  add("forecast_model", api::forecast_model, "mixture of experts", "model request", m, gm);

  const json serve = {{"gpu", h100}, {"model", llama}, {"prompt", 128}, {"output", 16}};
  add("forecast_serving", api::forecast_serving, "static batch", "serving request", serve, gm);
  json s = serve;
  s["qps"] = 4;
  s["requests"] = 20;
  add("forecast_serving", api::forecast_serving, "Poisson load", "serving request", s, gm);
  s = serve;
  s["concurrency"] = 4;
  s["requests"] = 20;
  s["scheduler"] = "static";
  add("forecast_serving", api::forecast_serving, "closed loop, static", "serving request", s, gm);
  s = {{"gpu", h100}, {"model", llama}, {"trace", trace.dump()}};
  add("forecast_serving", api::forecast_serving, "trace", "serving request", s,
      {Place::gpu, Place::model, Place::trace});

  add("plan_parallel", api::plan_parallel, "plan", "plan request",
      {{"system", dgx},
       {"model", gpt2},
       {"global_batch", 8},
       {"seq", 128},
       {"max_microbatches", 2}},
      {Place::system, Place::model});
  add("plan_capacity", api::plan_capacity, "capacity", "capacity request",
      {{"gpu", h100},
       {"model", llama},
       {"qps", 2},
       {"slo_ttft_ms", 1000},
       {"slo_tpot_ms", 100},
       {"prompt", 128},
       {"output", 16},
       {"requests", 50},
       {"max_gpus", 8}},
      gm);
  add("forecast_collective", api::forecast_collective, "collective", "collective request",
      {{"system", dgx}, {"collective", "all_reduce"}, {"bytes", 1 << 20}, {"gpus", 8}},
      {Place::system});
  return out;
}

// The fields `b` reads: its numeric reads, then each name it asks for tried once at 1.
inline std::vector<Field> fields_of(const Base& b, std::vector<std::string>& unknown_origins) {
  std::map<std::pair<int, std::string>, Field> found;
  auto collect = [&](const detail::FieldReads& r) {
    for (const auto& n : r.numeric) {
      bool known = false;
      const Place p = place_of(b, n.origin, known);
      if (!known) {
        unknown_origins.push_back(b.api + " " + b.what + ": " + n.origin + " '" + n.field + "'");
        continue;
      }
      const Place holder =
          p == Place::system_intra_node || p == Place::system_network ? Place::system : p;
      if (p != Place::top && std::find(b.nested.begin(), b.nested.end(), holder) == b.nested.end())
        continue;
      found[{int(p), n.field}] = {p, n.field, n.max, n.integer};
    }
  };
  const Observed o = observe(b.call, b.request);
  if (!o.answered) throw Error("request_maxima: the " + b.api + " " + b.what + " base fails");
  collect(o.reads);
  std::set<std::string> asked(o.reads.asked.begin(), o.reads.asked.end());
  for (const std::string& name : asked) {
    if (b.request.contains(name) || found.count({int(Place::top), name})) continue;
    json req = b.request;
    req[name] = 1;
    collect(observe(b.call, req).reads);
  }
  std::vector<Field> out;
  for (auto& [key, f] : found) out.push_back(f);
  return out;
}

}  // namespace maxima_detail

// Every base request's numeric fields at their maxima, one at a time, then all together.
// `unknown_origins` gets reads from an origin this file does not place (a new inline object:
// add its place).
inline std::vector<LimitCase> request_maxima(std::vector<std::string>& unknown_origins) {
  using namespace maxima_detail;
  // warm the catalog, zoo and model caches so their own reads are not observed
  for (const Base& b : bases()) observe(b.call, b.request);
  std::vector<LimitCase> out;
  for (const Base& b : bases()) {
    const std::vector<Field> fields = fields_of(b, unknown_origins);
    json all = b.request;
    std::vector<std::string> names;
    for (const Field& f : fields) {
      LimitCase c{b.api + " " + b.what + ": " + f.name, b.call, b.request, {f.name}};
      set_field(c.request, f);
      out.push_back(std::move(c));
      set_field(all, f);
      names.push_back(f.name);
    }
    out.push_back({b.api + " " + b.what + ": every field at its maximum", b.call, all, names});
  }
  // forecast_kernel's one numeric field is the array "dims" (1 .. kMaxKernelDim each; a linear
  // layer's B is 1): every built-in op with each dim at its maximum, then all of them
  for (int i = 0; i <= int(Op::ln); ++i) {
    const Op op = static_cast<Op>(i);
    const std::size_t n = op_dim_count(op);
    const json base = {{"gpu", "h100-sxm"}, {"op", std::string(op_name(op))}};
    json all = base;
    all["dims"] = json::array();
    auto max_of = [&](std::size_t d) { return op == Op::linear && d == 0 ? 1 : kMaxKernelDim; };
    auto base_of = [&](std::size_t d) { return op == Op::linear && d == 0 ? 1 : 64; };
    for (std::size_t d = 0; d < n; ++d) {
      json req = base;
      req["dims"] = json::array();
      for (std::size_t e = 0; e < n; ++e) req["dims"].push_back(e == d ? max_of(e) : base_of(e));
      out.push_back(
          {"forecast_kernel " + std::string(op_name(op)) + ": dims[" + std::to_string(d) + "]",
           api::forecast_kernel,
           req,
           {"dims"}});
      all["dims"].push_back(max_of(d));
    }
    out.push_back({"forecast_kernel " + std::string(op_name(op)) + ": every dim at its maximum",
                   api::forecast_kernel,
                   all,
                   {"dims"}});
  }
  return out;
}

}  // namespace tilecast::test
