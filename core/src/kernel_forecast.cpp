#include "tilecast/kernel_forecast.hpp"

#include "tilecast/error.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {

Predictor parse_predictor(std::string_view name) {
  if (name == "tilecast") return Predictor::tilecast;
  if (name == "roofline") return Predictor::roofline;
  throw Error("unknown predictor '" + std::string(name) + "'; allowed: tilecast, roofline");
}

std::string_view predictor_name(Predictor p) {
  return p == Predictor::roofline ? "roofline" : "tilecast";
}

KernelForecast forecast_kernel(const GpuSpec& gpu, const Kernel& kernel, Predictor predictor) {
  KernelForecast f;
  f.flops = kernel_flops(kernel);
  f.bytes = kernel_bytes(kernel);
  f.roofline_ms = roofline_latency_ms(gpu, kernel);
  if (predictor == Predictor::roofline) {
    f.latency_ms = f.roofline_ms;
    f.tiles = 1;
    f.waves = 1;
    f.tile = "whole kernel";
    return f;
  }
  throw Error("the learned predictor is not built yet; use --predictor roofline");
}

}  // namespace tilecast
