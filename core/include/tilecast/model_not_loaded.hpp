// The error of a forecast that needs a learned model whose files this build does not embed
// (the WASM build embeds the default view's only: core/CMakeLists.txt, TILECAST_EMBED_MODELS).
// It names the model, so a front end can load it (api::load_model) and ask again; the
// forecasting code never takes it for a failed candidate (plan searches rethrow it).
#pragma once

#include <string>
#include <utility>

#include "tilecast/error.hpp"

namespace tilecast {

class ModelNotLoaded : public Error {
 public:
  explicit ModelNotLoaded(std::string model_id)
      : Error("the forecast needs learned model '" + model_id +
              "', whose files this build does not embed (core/data/models/" + model_id +
              "/); load them first (loadModel, api::load_model)"),
        model_id_(std::move(model_id)) {}
  const std::string& model_id() const { return model_id_; }

 private:
  std::string model_id_;
};

}  // namespace tilecast
