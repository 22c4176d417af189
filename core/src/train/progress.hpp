// Progress of a training run over its families, for the `progress` callback of the trainers:
// elapsed time since the run began and an estimate of what is left, from the share of the
// work (rows x epochs, weighted by each family's cost) done so far.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "tilecast/train.hpp"

namespace tilecast::train {

class ProgressClock {
 public:
  // Starts the clock; `total_work` is set once the datasets are built.
  ProgressClock() : t0_(std::chrono::steady_clock::now()) {}
  double total_work = 0;

  // The per-epoch callback fit_family takes: counts `unit` of work per epoch and reports
  // `family` to `progress` (nothing when `progress` is empty).
  std::function<void(int, double)> epochs_of(
      std::string family, int epochs, double unit,
      const std::function<void(const TrainProgress&)>& progress) {
    return [this, family = std::move(family), epochs, unit, &progress](int epoch, double loss) {
      done_work_ += unit;
      if (!progress) return;
      TrainProgress p;
      p.family = family;
      p.epoch = epoch;
      p.epochs = epochs;
      p.loss = loss;
      p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
      p.left_s = done_work_ > 0 ? p.elapsed_s * (total_work - done_work_) / done_work_ : 0;
      progress(p);
    };
  }

 private:
  std::chrono::steady_clock::time_point t0_;
  double done_work_ = 0;
};

}  // namespace tilecast::train
