#include "tilecast/learned_models.hpp"

#include <memory>
#include <string>

#include "forecast/amd_gemm_predictor.hpp"
#include "forecast/predictor.hpp"

namespace tilecast {
namespace {

// Owns the parsed weights and table for as long as its predictor lives (the registry's).
class OwningLearnedPredictor final : public KernelPredictor {
 public:
  OwningLearnedPredictor(KernelWeights weights, TileTable tiles)
      : weights_(std::move(weights)), tiles_(std::move(tiles)), model_(weights_, tiles_) {}
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    return model_.forecast(gpu, kernel);
  }
  std::string_view name() const override { return model_.name(); }
  bool covers(const Kernel& kernel) const override { return model_.covers(kernel); }

 private:
  KernelWeights weights_;
  TileTable tiles_;
  LearnedPredictor model_;
};

}  // namespace

void register_fp32_weights(std::string_view vendor, std::string_view weights_json,
                           std::string_view tile_table_json, std::string_view origin) {
  const std::string o(origin);
  auto model = std::make_shared<OwningLearnedPredictor>(
      parse_kernel_weights(weights_json, o + " (weights)"),
      parse_tile_table(tile_table_json, o + " (tile table)"));
  register_learned_model({std::string(vendor), DataType::fp32, ""}, model);
  register_learned_model({std::string(vendor), DataType::fp32, "gemm"}, std::move(model));
}

void register_amd_gemm_model(std::string_view model_json, std::string_view weights_json,
                             std::string_view tile_table_json, std::string_view origin) {
  const std::string o(origin);
  TileTable table = parse_tile_table(tile_table_json, o + " (tile table)");
  auto net = std::make_shared<OwningLearnedPredictor>(
      parse_kernel_weights(weights_json, o + " (weights)"), table);
  register_learned_model(
      {"AMD", DataType::fp32, "gemm"},
      make_amd_gemm_predictor(parse_amd_gemm_model(model_json, o), std::move(table), net));
}

}  // namespace tilecast
