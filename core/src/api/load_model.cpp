// JSON API for loading a learned model this build does not embed (the web build fetches the
// other vendors' and precisions' weights on demand): the request is the site's
// models/<id>.json, the registry takes its files (forecast/model_registry.hpp).
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_fields.hpp"
#include "forecast/model_registry.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

namespace tilecast::api {

std::string load_model(std::string_view request_json) {
  constexpr const char* kOrigin = "load model request";
  const nlohmann::json req = detail::parse_json(request_json, kOrigin);
  if (!req.is_object()) throw Error(std::string(kOrigin) + ": must be a JSON object");
  const std::string id = detail::string_field(req, "id", kOrigin);
  if (!detail::has_field(req, "files") || !req["files"].is_object())
    throw Error(std::string(kOrigin) + ": field 'files' must map roles to the files' text");
  std::map<std::string, std::string> files;
  for (const auto& [role, text] : req["files"].items()) {
    if (!text.is_string())
      throw Error(std::string(kOrigin) + ": field 'files." + role + "' must be the file's text");
    files[role] = text.get<std::string>();
  }
  load_model_files(id, files);
  nlohmann::json out = {{"id", id}, {"files", nlohmann::json::array()}};
  for (const auto& [role, text] : files) out["files"].push_back(role);
  return out.dump();
}

}  // namespace tilecast::api
