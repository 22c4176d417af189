// JSON API for whole-model forecasts. (Filled in by the whole-model forecast work.)
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

namespace tilecast::api {

std::string list_models() { throw Error("model forecasts are not built yet"); }
std::string validate_model(std::string_view) { throw Error("model forecasts are not built yet"); }
std::string forecast_model(std::string_view) { throw Error("model forecasts are not built yet"); }

}  // namespace tilecast::api
