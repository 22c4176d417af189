#include "family_fit.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "adamw.hpp"
#include "rng.hpp"

namespace tilecast::train {
namespace {

// A view of the flat parameter vector as layers (w then b per layer).
struct Shape {
  std::vector<int> widths;  // inputs, hidden..., 3
  std::vector<std::size_t> w_at, b_at;
  std::size_t size = 0;
  explicit Shape(std::vector<int> w) : widths(std::move(w)) {
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      w_at.push_back(size);
      size += std::size_t(widths[l]) * widths[l + 1];
      b_at.push_back(size);
      size += std::size_t(widths[l + 1]);
    }
  }
  std::size_t layers() const { return w_at.size(); }
};

Mlp to_mlp(const Shape& sh, const std::vector<double>& p, const std::vector<double>& mean,
           const std::vector<double>& scale, const std::vector<double>& lo,
           const std::vector<double>& hi) {
  Mlp m;
  m.mean = mean;
  m.scale = scale;
  m.lo = lo;
  m.hi = hi;
  for (std::size_t l = 0; l < sh.layers(); ++l) {
    MlpLayer L;
    L.in = sh.widths[l];
    L.out = sh.widths[l + 1];
    L.w.assign(p.begin() + std::ptrdiff_t(sh.w_at[l]),
               p.begin() + std::ptrdiff_t(sh.w_at[l] + std::size_t(L.in) * L.out));
    L.b.assign(p.begin() + std::ptrdiff_t(sh.b_at[l]),
               p.begin() + std::ptrdiff_t(sh.b_at[l] + std::size_t(L.out)));
    m.layers.push_back(std::move(L));
  }
  m.prepare();
  return m;
}

double smape(double pred, double y) { return 2.0 * std::fabs(pred - y) / (pred + y); }

}  // namespace

double evaluate_smape(const Mlp& mlp, const FamilyData& data, double overhead_max_ms) {
  double sum = 0;
  for (const Sample& s : data.samples) {
    double out[3];
    mlp.forward(s.x.data(), out);
    const UtilizationHeads h = heads_from_outputs(out, overhead_max_ms);
    const double pred = std::max(compose_latency_ms(s.waves, s.tile_ms, h), s.roofline_ms);
    sum += smape(pred, s.latency_ms);
  }
  return data.samples.empty() ? 0 : sum / double(data.samples.size());
}

FitResult fit_family(const FamilyData& data, const FitSettings& st, std::uint64_t seed,
                     const std::function<void(int, double)>& on_epoch) {
  const int nin = data.features;
  const std::size_t n = data.samples.size();
  std::vector<int> widths{nin};
  for (int h : st.hidden) widths.push_back(h);
  widths.push_back(3);
  const Shape sh(widths);

  std::vector<double> mean(nin, 0.0), scale(nin, 1.0), lo(nin, 0.0), hi(nin, 0.0);
  for (int i = 0; i < nin && n > 0; ++i) lo[i] = hi[i] = data.samples[0].x[i];
  for (const Sample& s : data.samples)
    for (int i = 0; i < nin; ++i) {
      mean[i] += s.x[i];
      lo[i] = std::min(lo[i], s.x[i]);
      hi[i] = std::max(hi[i], s.x[i]);
    }
  for (int i = 0; i < nin; ++i) mean[i] /= double(std::max<std::size_t>(n, 1));
  std::vector<double> var(nin, 0.0);
  for (const Sample& s : data.samples)
    for (int i = 0; i < nin; ++i) var[i] += (s.x[i] - mean[i]) * (s.x[i] - mean[i]);
  for (int i = 0; i < nin; ++i) {
    const double sd = std::sqrt(var[i] / double(std::max<std::size_t>(n, 1)));
    scale[i] = sd > 1e-9 ? 1.0 / sd : 1.0;
  }

  Rng rng(seed);
  std::vector<double> p(sh.size, 0.0), decay(sh.size, 0.0), grad(sh.size, 0.0);
  for (std::size_t l = 0; l < sh.layers(); ++l) {
    const int in = widths[l], out = widths[l + 1];
    const bool last = l + 1 == sh.layers();
    const double sd = last ? 0.1 / std::sqrt(double(in)) : std::sqrt(2.0 / double(in));
    for (std::size_t k = 0; k < std::size_t(in) * out; ++k) {
      p[sh.w_at[l] + k] = sd * rng.normal();
      decay[sh.w_at[l] + k] = st.weight_decay;
    }
  }
  {
    const std::size_t b = sh.b_at.back();
    p[b + 0] = 1.0;   // gamma ~ 0.73
    p[b + 1] = -1.0;  // alpha ~ 0.27
    p[b + 2] = -2.0;  // overhead ~ 12% of its cap
  }

  AdamW opt(sh.size);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const std::size_t batches = (n + std::size_t(st.batch) - 1) / std::size_t(st.batch);
  const double total_steps = double(std::max<std::size_t>(batches, 1)) * st.epochs;
  double step_no = 0;

  const std::size_t L = sh.layers();
  std::vector<std::vector<double>> act(L + 1), pre(L + 1), delta(L + 1);
  for (std::size_t l = 0; l <= L; ++l) {
    act[l].assign(widths[l], 0.0);
    pre[l].assign(widths[l], 0.0);
    delta[l].assign(widths[l], 0.0);
  }

  FitResult res;
  for (int epoch = 1; epoch <= st.epochs; ++epoch) {
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    double epoch_loss = 0;
    for (std::size_t b0 = 0; b0 < n; b0 += std::size_t(st.batch)) {
      const std::size_t b1 = std::min(n, b0 + std::size_t(st.batch));
      std::fill(grad.begin(), grad.end(), 0.0);
      for (std::size_t bi = b0; bi < b1; ++bi) {
        const Sample& s = data.samples[order[bi]];
        for (int i = 0; i < nin; ++i) act[0][i] = (s.x[i] - mean[i]) * scale[i];
        for (std::size_t l = 0; l < L; ++l) {
          const int in = widths[l], out = widths[l + 1];
          const double* w = &p[sh.w_at[l]];
          const double* bb = &p[sh.b_at[l]];
          for (int o = 0; o < out; ++o) {
            double z = bb[o];
            for (int i = 0; i < in; ++i) z += w[std::size_t(o) * in + i] * act[l][i];
            pre[l + 1][o] = z;
            act[l + 1][o] = (l + 1 == L) ? z : std::max(z, 0.0);
          }
        }
        const double* o = act[L].data();
        const double g = sigmoid(o[0]), a = sigmoid(o[1]), sc = sigmoid(o[2]);
        const double c = st.overhead_max_ms * sc;
        const double W = std::max(s.waves, 1.0);
        const double u = std::max(g * (1.0 - a / W), 1e-6);
        const double core = W * s.tile_ms / u;
        const double pred = core + c;
        const double y = s.latency_ms;
        epoch_loss += smape(pred, y);
        const double weight = st.weight_ref_ms > 0 ? 1.0 + std::log2(1.0 + y / st.weight_ref_ms) : 1.0;
        const double dpred =
            weight * (pred > y ? 1.0 : -1.0) * 4.0 * y / ((pred + y) * (pred + y));
        const double du = dpred * (-core / u);
        delta[L][0] = du * (1.0 - a / W) * g * (1.0 - g);
        delta[L][1] = du * (-g / W) * a * (1.0 - a);
        delta[L][2] = dpred * st.overhead_max_ms * sc * (1.0 - sc);
        for (std::size_t l = L; l >= 1; --l) {
          const int in = widths[l - 1], out = widths[l];
          double* gw = &grad[sh.w_at[l - 1]];
          double* gb = &grad[sh.b_at[l - 1]];
          const double* w = &p[sh.w_at[l - 1]];
          for (int oo = 0; oo < out; ++oo) {
            const double d = delta[l][oo];
            if (d == 0.0) continue;
            gb[oo] += d;
            for (int i = 0; i < in; ++i) gw[std::size_t(oo) * in + i] += d * act[l - 1][i];
          }
          if (l > 1) {
            for (int i = 0; i < in; ++i) {
              double s2 = 0;
              for (int oo = 0; oo < out; ++oo) s2 += w[std::size_t(oo) * in + i] * delta[l][oo];
              delta[l - 1][i] = pre[l - 1][i] > 0 ? s2 : 0.0;
            }
          }
        }
      }
      const double inv = 1.0 / double(b1 - b0);
      for (double& v : grad) v *= inv;
      const double t = step_no / total_steps;
      const double lr = st.lr * (st.lr_final_fraction +
                                 (1 - st.lr_final_fraction) * 0.5 * (1 + std::cos(3.141592653589793 * t)));
      opt.step(p, grad, decay, lr);
      step_no += 1;
    }
    epoch_loss /= double(std::max<std::size_t>(n, 1));
    if (epoch == 1) res.first_loss = epoch_loss;
    res.last_loss = epoch_loss;
    if (on_epoch) on_epoch(epoch, epoch_loss);
  }
  res.mlp = to_mlp(sh, p, mean, scale, lo, hi);
  return res;
}

}  // namespace tilecast::train
