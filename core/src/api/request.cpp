#include "api/request.hpp"

#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

namespace tilecast::detail {

GpuSpec request_gpu(const nlohmann::json& request) {
  auto it = request.find("gpu");
  if (it == request.end() || it->is_null()) throw Error("request: field 'gpu' is missing");
  if (it->is_string()) return find_gpu(it->get<std::string>());
  if (it->is_object()) return parse_gpu_spec(it->dump(), "custom GPU");
  throw Error("request: field 'gpu' must be a catalog name or a spec object");
}

}  // namespace tilecast::detail
