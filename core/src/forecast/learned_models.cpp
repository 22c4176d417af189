// Run-time models through the registry: a manifest written here, the files given as text.
#include "tilecast/learned_models.hpp"

#include <memory>
#include <string>

#include "forecast/model_registry.hpp"

namespace tilecast {
namespace {

ModelManifest fp32_manifest(std::string_view id, std::string_view kind, std::string_view vendor) {
  ModelManifest m;
  m.id = id;
  m.kind = kind;
  m.vendor = vendor;
  m.precisions = {DataType::fp32};
  return m;
}

}  // namespace

void register_fp32_weights(std::string_view vendor, std::string_view weights_json,
                           std::string_view tile_table_json, std::string_view origin) {
  const std::string o(origin);
  ModelManifest m = fp32_manifest(o, "learned_net", vendor);
  auto model = build_model(m, {{"weights", weights_json}, {"tile_table", tile_table_json}},
                           {{"weights", o + " (weights)"}, {"tile_table", o + " (tile table)"}});
  register_model(m, model);
  m.families = {"gemm"};  // ahead of an embedded analytic GEMM model too
  register_model(m, std::move(model));
}

void register_amd_gemm_model(std::string_view model_json, std::string_view weights_json,
                             std::string_view tile_table_json, std::string_view origin) {
  const std::string o(origin);
  const std::map<std::string, std::string> origins = {
      {"model", o}, {"weights", o + " (weights)"}, {"tile_table", o + " (tile table)"}};
  auto net = build_model(fp32_manifest(o, "learned_net", "AMD"),
                         {{"weights", weights_json}, {"tile_table", tile_table_json}}, origins);
  ModelManifest m = fp32_manifest(o, "amd_gemm", "AMD");
  m.families = {"gemm"};
  register_model(m, build_model(m, {{"model", model_json}, {"tile_table", tile_table_json}},
                                origins, std::move(net)));
}

}  // namespace tilecast
