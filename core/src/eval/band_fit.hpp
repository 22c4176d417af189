// Fitting one 80% error band from out-of-architecture residuals grouped by architecture (the
// generalization protocol's folds): a predictive interval for an architecture none of the
// groups is, under a one-way random-effects model of the log residuals (docs/generalization.md,
// "Error bands"). Kept apart from the report so the statistics can be tested on their own.
#pragma once

#include <vector>

#include "tilecast/error_bands.hpp"

namespace tilecast {

// P(T <= t) for Student's t with `dof` >= 1 degrees of freedom (Abramowitz & Stegun 26.7.3-4:
// the finite series of an integer degree, exact up to rounding).
double student_t_cdf(double t, int dof);

// Linear interpolation between order statistics (R's type 7) of sorted values; 0 when empty.
double sorted_quantile(const std::vector<double>& sorted, double q);

// The band of residuals r = ln(measured / forecast), one vector per architecture (empty ones
// ignored). With K >= 2 architectures of means m_k: centre mu = mean of m_k, between-architecture
// spread tau = their sample standard deviation, within-architecture deviations r - m_k (each
// architecture weighted equally); a new architecture's residual is mu + tau * sqrt(1 + 1/K) *
// T(K - 1) + a within deviation, and [low, high] are e^ of its 10th and 90th percentiles. With
// one architecture: the empirical 10th and 90th percentiles of its residuals.
ErrorBand fit_architecture_band(const std::vector<std::vector<double>>& by_architecture);

}  // namespace tilecast
