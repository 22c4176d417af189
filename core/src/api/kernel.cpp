// JSON API for GPUs and single kernels.
#include <nlohmann/json.hpp>

#include "api/request.hpp"
#include "common/json_fields.hpp"
#include "forecast/model_json.hpp"
#include "forecast/work_budget.hpp"
#include "hw/gpu_spec_json.hpp"
#include "tilecast/api.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/forecast_caveats.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast::api {

std::string list_gpus() {
  // each spec's compact text joined, none parsed back (its fields in the catalog's order)
  std::string list = "[";
  for (const auto& g : gpu_catalog()) {
    if (list.size() > 1) list += ',';
    list += gpu_spec_json_text(g, -1);
  }
  return list + "]";
}

std::string validate_gpu(std::string_view spec_json) {
  return gpu_spec_to_json(parse_gpu_spec(spec_json, "GPU spec"));
}

std::string forecast_kernel(std::string_view request_json) {
  const nlohmann::json req = detail::parse_json(request_json, "kernel request");
  const GpuSpec gpu = detail::request_gpu(req);
  const std::string op = detail::string_field(req, "op", "kernel request");
  if (detail::has_field(req, "precision") && !req.at("precision").is_string())
    throw Error("kernel request: field 'precision' must be a string (" +
                enum_names_joined(dtype_names(), ", ") + ")");
  if (!req.contains("dims") || !req.at("dims").is_array())
    throw Error("kernel request: field 'dims' must be an array of integers");
  std::string dims;
  for (const auto& d : req.at("dims")) {
    if (!d.is_number_integer() && !d.is_number_unsigned())
      throw Error("kernel request: field 'dims' must hold only integers, got " + d.dump());
    dims += (dims.empty() ? "" : ",");
    dims += std::to_string(d.get<long long>());
  }
  const std::string precision = detail::string_field(req, "precision", "kernel request", false);
  const DataType dtype = precision.empty() ? DataType::fp32 : parse_dtype(precision);
  require_precision(gpu, dtype);  // names the catalog GPUs that have it
  const Kernel kernel = parse_kernel(op, dims, dtype);
  const std::string pname = detail::string_field(req, "predictor", "kernel request", false);
  const Predictor predictor = pname.empty() ? Predictor::tilecast : parse_predictor(pname);
  // one kernel: one step of work, estimated like every request's (forecast/work_budget.hpp)
  detail::require_within_budget(1, "kernel request", "nothing (one kernel)");
  const KernelForecast f = tilecast::forecast_kernel(gpu, kernel, predictor);
  nlohmann::ordered_json j;
  j["gpu"] = gpu.name;
  j["op"] = op_name(kernel.op);
  j["dims"] = dims_to_string(kernel);
  j["precision"] = dtype_name(kernel.dtype);
  j["predictor"] = predictor_name(predictor);
  j["latency_ms"] = f.latency_ms;
  tilecast::detail::write_band_ms(j, f.band_low_ms, f.band_high_ms);
  j["roofline_ms"] = f.roofline_ms;
  j["flops"] = f.flops;
  j["bytes"] = f.bytes;
  j["tile"] = f.tile;
  j["tiles"] = f.tiles;
  j["waves"] = f.waves;
  j["utilization"] = f.utilization;
  j["caveats"] = single_kernel_caveats(gpu, predictor, kernel, f);
  return j.dump(2);
}

}  // namespace tilecast::api
