// What a forecast stands on, in one word (issue 32): every forecast response's "footing", so
// forecasts of unequal footing are never set side by side unmarked. Decided once, from the
// learned models' manifests (the model registry) and the kernels the replay forecast by the
// roofline; the caveats (tilecast/forecast_caveats.hpp) say the same in sentences.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

// Weakest first; a forecast takes the weakest that applies:
//   roofline         the roofline predictor forecast every kernel
//   transferred      learned models reach this GPU only by transfer: no GPU of its vendor or of
//                    its architecture (or none named) was measured, or a model of another vendor
//                    or precision serves its kernels (the registry's transfers)
//   partly_roofline  learned models of its own, but kernels no learned model covers were
//                    forecast by the roofline
//   learned          learned models trained on its vendor and architecture for every kernel
enum class Footing { roofline, transferred, partly_roofline, learned };
// "roofline" | "transferred" | "partly_roofline" | "learned" (the schemas' Footing enum)
std::string_view footing_name(Footing f);

// `dtype`: the forecast's precision (its GEMMs; the other kernels' type follows it);
// `roofline_fallbacks`: whether the replay forecast any kernel by the roofline for want of a
// learned model (the forecast's roofline_fallbacks are not empty); `transfers_used`: the
// kernels a transferred model forecast ("<model id> <type> <family>", the replay's transfers_used),
// or null where the forecast does not say (then any transfer to the GPU's vendor and type counts).
Footing forecast_footing(const GpuSpec& gpu, Predictor predictor, DataType dtype,
                         bool roofline_fallbacks,
                         const std::vector<std::string>* transfers_used = nullptr);

}  // namespace tilecast
