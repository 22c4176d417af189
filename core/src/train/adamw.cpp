#include "train/adamw.hpp"

#include <cmath>

namespace tilecast::train {

AdamW::AdamW(std::size_t size, double beta1, double beta2, double eps)
    : m_(size, 0.0), v_(size, 0.0), beta1_(beta1), beta2_(beta2), eps_(eps) {}

void AdamW::step(std::vector<double>& p, const std::vector<double>& g,
                 const std::vector<double>& decay, double lr) {
  pow1_ *= beta1_;
  pow2_ *= beta2_;
  for (std::size_t i = 0; i < p.size(); ++i) {
    m_[i] = beta1_ * m_[i] + (1 - beta1_) * g[i];
    v_[i] = beta2_ * v_[i] + (1 - beta2_) * g[i] * g[i];
    const double mh = m_[i] / (1 - pow1_);
    const double vh = v_[i] / (1 - pow2_);
    p[i] -= lr * (mh / (std::sqrt(vh) + eps_) + decay[i] * p[i]);
  }
}

}  // namespace tilecast::train
