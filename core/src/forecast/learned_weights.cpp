// Registers run-time weights (or the embedded ones again) as the FP32 learned model of every
// vendor, through the registry.
#include "tilecast/learned_weights.hpp"

#include <memory>
#include <string>

#include "forecast/model_registry.hpp"

namespace tilecast {

void use_learned_weights(std::string_view weights_json, std::string_view tile_table_json,
                         std::string_view origin) {
  const std::string o(origin);
  ModelManifest m;
  m.id = o;
  m.kind = "learned_net";
  m.serves_any_vendor = true;
  m.precisions = {DataType::fp32};
  register_model(m, build_model(m, {{"weights", weights_json}, {"tile_table", tile_table_json}},
                                {{"weights", o + "/kernel_weights.json"},
                                 {"tile_table", o + "/tile_table.json"}}));
}

void use_embedded_weights() {
  // the embedded FP32 set that serves every vendor
  if (const ModelManifest* m = manifest_for("", DataType::fp32, ""))
    register_learned_model({"", DataType::fp32, ""}, embedded_model(m->id));
}

}  // namespace tilecast
