// The 80% band of out-of-architecture residuals: a random-effects predictive interval (see
// band_fit.hpp for the model).
#include "eval/band_fit.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace tilecast {
namespace {

constexpr double kLowQuantile = 0.1, kHighQuantile = 0.9;

struct Deviation {
  double value;   // residual minus its architecture's mean
  double weight;  // 1 / (K * that architecture's count): each architecture counts once
};

// The q-quantile of mu + s * T(dof) + D, D the weighted deviations: the x where the mixture's
// CDF, sum_i w_i * F_T((x - mu - d_i) / s), crosses q. Bisection on a bracket grown until it
// holds the crossing; 200 halvings at most (the CDF is monotone, so this always ends).
double predictive_quantile(double mu, double s, int dof, const std::vector<Deviation>& d,
                           double q) {
  const auto cdf = [&](double x) {
    double f = 0;
    for (const Deviation& e : d) f += e.weight * student_t_cdf((x - mu - e.value) / s, dof);
    return f;
  };
  double lo = mu - s, hi = mu + s;
  for (const Deviation& e : d) {
    lo = std::min(lo, mu + e.value - s);
    hi = std::max(hi, mu + e.value + s);
  }
  for (double step = s; cdf(lo) > q && step < 1e6; step *= 2) lo -= step;
  for (double step = s; cdf(hi) < q && step < 1e6; step *= 2) hi += step;
  for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cdf(mid) < q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double student_t_cdf(double t, int dof) {
  const double nu = dof;
  const double theta = std::atan(std::fabs(t) / std::sqrt(nu));
  const double c = std::cos(theta), s = std::sin(theta);
  double a = 0;  // P(|T| < |t|)
  if (dof % 2 == 1) {
    double sum = 0, term = c;
    if (dof > 1) sum = term;
    for (int k = 3; k <= dof - 2; k += 2) {
      term *= c * c * (k - 1) / k;
      sum += term;
    }
    a = 2 / std::numbers::pi * (theta + s * sum);
  } else {
    double sum = 1, term = 1;
    for (int k = 2; k <= dof - 2; k += 2) {
      term *= c * c * (k - 1) / k;
      sum += term;
    }
    a = s * sum;
  }
  return t < 0 ? 0.5 - 0.5 * a : 0.5 + 0.5 * a;
}

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const std::size_t i = std::size_t(pos);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (pos - double(i)) * (sorted[i + 1] - sorted[i]);
}

ErrorBand fit_architecture_band(const std::vector<std::vector<double>>& by_architecture) {
  std::vector<const std::vector<double>*> groups;
  std::vector<double> all;
  for (const auto& g : by_architecture)
    if (!g.empty()) {
      groups.push_back(&g);
      all.insert(all.end(), g.begin(), g.end());
    }
  ErrorBand band;
  band.n = std::int64_t(all.size());
  if (all.empty()) return band;
  const std::size_t k = groups.size();
  if (k < 2) {  // no spread between architectures to estimate: the residuals' own percentiles
    std::sort(all.begin(), all.end());
    band.low = std::exp(sorted_quantile(all, kLowQuantile));
    band.high = std::exp(sorted_quantile(all, kHighQuantile));
    return band;
  }
  std::vector<double> means;
  for (const auto* g : groups) {
    double sum = 0;
    for (double r : *g) sum += r;
    means.push_back(sum / double(g->size()));
  }
  double mu = 0;
  for (double m : means) mu += m;
  mu /= double(k);
  double ss = 0;
  for (double m : means) ss += (m - mu) * (m - mu);
  const double tau = std::sqrt(ss / double(k - 1));
  // tau == 0 (architectures that agree exactly) leaves a step CDF; a tiny scale keeps the
  // bisection well defined and the band the within deviations' own quantiles.
  const double scale = std::max(tau * std::sqrt(1 + 1 / double(k)), 1e-9);
  std::vector<Deviation> deviations;
  for (std::size_t i = 0; i < k; ++i)
    for (double r : *groups[i])
      deviations.push_back({r - means[i], 1 / (double(k) * double(groups[i]->size()))});
  const int dof = int(k) - 1;
  band.low = std::exp(predictive_quantile(mu, scale, dof, deviations, kLowQuantile));
  band.high = std::exp(predictive_quantile(mu, scale, dof, deviations, kHighQuantile));
  return band;
}

}  // namespace tilecast
