// AdamW (Adam with decoupled weight decay) over a flat parameter vector.
#pragma once

#include <vector>

namespace tilecast::train {

class AdamW {
 public:
  AdamW(std::size_t size, double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8);
  // One step: params -= lr * (m_hat / (sqrt(v_hat) + eps) + decay[i] * params).
  void step(std::vector<double>& params, const std::vector<double>& grad,
            const std::vector<double>& decay, double lr);

 private:
  std::vector<double> m_, v_;
  double beta1_, beta2_, eps_, pow1_ = 1, pow2_ = 1;
};

}  // namespace tilecast::train
