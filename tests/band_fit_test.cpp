// The error bands' statistics (eval/band_fit.hpp): Student's t distribution against published
// critical values, and the random-effects band on residuals whose answer is known by hand.
#include "eval/band_fit.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "test_paths.hpp"

using namespace tilecast;
using test::evenly;

TEST_SUITE("band fit") {
  TEST_CASE("Student's t: the 90th percentiles of the tables, symmetry, the normal limit") {
    // one-sided 0.90 critical values (any statistics table) for 1, 2, 3, 4, 10 degrees
    const std::vector<std::pair<int, double>> t90 = {
        {1, 3.0777}, {2, 1.8856}, {3, 1.6377}, {4, 1.5332}, {10, 1.3722}};
    for (const auto& [dof, t] : t90) {
      CAPTURE(dof);
      CHECK(student_t_cdf(t, dof) == doctest::Approx(0.9).epsilon(1e-4));
      CHECK(student_t_cdf(-t, dof) == doctest::Approx(0.1).epsilon(1e-3));
    }
    CHECK(student_t_cdf(0, 3) == 0.5);
    CHECK(student_t_cdf(1.0, 1) == doctest::Approx(0.75));  // Cauchy: 1/2 + atan(1)/pi
    CHECK(student_t_cdf(1.2816, 400) == doctest::Approx(0.9).epsilon(1e-3));  // ~ normal
  }

  TEST_CASE("one architecture: its residuals' own 10th and 90th percentiles") {
    const ErrorBand b = fit_architecture_band({evenly(-0.5, 0.5, 201)});
    CHECK(b.n == 201);
    CHECK(std::log(b.low) == doctest::Approx(-0.4));
    CHECK(std::log(b.high) == doctest::Approx(0.4));
    // empty architectures do not count
    const ErrorBand same = fit_architecture_band({{}, evenly(-0.5, 0.5, 201), {}});
    CHECK(same.low == b.low);
    CHECK(fit_architecture_band({}).n == 0);
  }

  TEST_CASE("architectures that differ only in their bias: mu +- t(K-1) * tau * sqrt(1 + 1/K)") {
    // three architectures, each forecast off by one constant: means 0.1, 0.3, 0.2
    const ErrorBand b = fit_architecture_band(
        {std::vector<double>(40, 0.1), std::vector<double>(7, 0.3), std::vector<double>(90, 0.2)});
    const double spread = 0.1 * std::sqrt(1 + 1.0 / 3) * 1.885618;  // t(2) at 0.9
    CHECK(std::log(b.high) == doctest::Approx(0.2 + spread).epsilon(1e-5));
    CHECK(std::log(b.low) == doctest::Approx(0.2 - spread).epsilon(1e-5));
    CHECK(b.n == 137);
  }

  TEST_CASE("architectures that agree in their bias: the deviations' own quantiles") {
    const std::vector<double> d = evenly(-0.2, 0.2, 101);
    std::vector<double> shifted;
    for (double x : d) shifted.push_back(x + 0.05);
    const ErrorBand b = fit_architecture_band({shifted, shifted, shifted});
    // the 11th and 91st of 101 values, 0.05 up
    CHECK(std::log(b.low) == doctest::Approx(-0.16 + 0.05).epsilon(1e-6));
    CHECK(std::log(b.high) == doctest::Approx(0.16 + 0.05).epsilon(1e-6));
  }

  TEST_CASE("each architecture counts once, however many residuals it has") {
    const std::vector<double> a = {-0.1, 0.1}, b = {0.2, 0.4}, c = {0.0, 0.2};
    std::vector<double> a_many;
    for (int i = 0; i < 50; ++i) a_many.insert(a_many.end(), a.begin(), a.end());
    const ErrorBand once = fit_architecture_band({a, b, c});
    const ErrorBand many = fit_architecture_band({a_many, b, c});
    CHECK(many.low == doctest::Approx(once.low).epsilon(1e-9));
    CHECK(many.high == doctest::Approx(once.high).epsilon(1e-9));
    // and the band is wider than the residuals themselves (a fourth architecture may differ)
    CHECK(std::log(once.low) < -0.1);
    CHECK(std::log(once.high) > 0.4);
  }
}
