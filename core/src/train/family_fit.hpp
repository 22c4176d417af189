// Fits one family's utilization model to measured latencies by minimising SMAPE
// of the composed latency (waves x tile time / utilization + overhead). Two nets:
// `steady` sees only tile and GPU features and gives gamma, the utilization of a
// long-running kernel; `tail` sees everything and gives alpha and the overhead.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "learned/mlp.hpp"
#include "train/dataset.hpp"

namespace tilecast::train {

struct FitSettings {
  std::vector<int> steady_hidden;
  std::vector<int> tail_hidden;
  std::vector<bool> steady_inputs;  // which features the steady net sees
  int epochs = 50;
  int batch = 256;
  double lr = 2e-3;
  double lr_final_fraction = 0.05;  // cosine decay to lr x this
  double weight_decay = 1e-4;
  double overhead_max_ms = 0.2;  // the trainer sets it per family from the data
  // Rows weigh 1 + log2(1 + latency / this) in the loss, so long kernels (the ones
  // that dominate a model's step) count more; 0 weighs every row alike.
  double weight_ref_ms = 0;
};

// The settings as one canonical line ("steady=32x32x tail=... epochs=80 ..."): part of the
// config text a weights file's training hash covers.
std::string fit_settings_text(const FitSettings& s);

struct FitResult {
  Mlp steady;  // 1 output: gamma (logit)
  Mlp tail;    // 2 outputs: alpha and overhead (logits)
  double first_loss = 0;
  double last_loss = 0;
};

// The cap on a family's learned fixed cost per kernel (launch and framework overhead): no
// kernel can cost less than its launch, so the overhead is at most the latency of the
// family's fastest measured kernel on each GPU, here the largest of those minima (0.03-0.06 ms
// in the NeuSight data). A looser cap let the size-aware tail net use the "overhead" as a
// correction that grows with the kernel and vanishes beyond the training range
// (docs/kernel-model.md, "Overhead cap").
double overhead_cap_ms(const FamilyData& d);

// `on_epoch(epoch, loss)` after each epoch. Deterministic given `seed`.
FitResult fit_family(const FamilyData& data, const FitSettings& s, std::uint64_t seed,
                     const std::function<void(int, double)>& on_epoch);

// A fitted family's entry in a kernel weights file as both trainers write it: rows, train_smape,
// features and overhead_max_ms first, then the caller's own fields, then its nets (add_nets:
// steady, tail). The order is the file's: a retrained file reads back byte for byte.
nlohmann::ordered_json family_entry(const FamilyData& data, const FitResult& fit,
                                    const std::vector<std::string>& features,
                                    double overhead_max_ms);
void add_nets(nlohmann::ordered_json& entry, const FitResult& fit);

}  // namespace tilecast::train
