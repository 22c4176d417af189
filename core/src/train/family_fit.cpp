#include "train/family_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "learned/heads.hpp"
#include "train/adamw.hpp"
#include "train/rng.hpp"
#include "train/weights_json.hpp"

namespace tilecast::train {

std::string fit_settings_text(const FitSettings& st) {
  std::string s = "steady=";
  for (int h : st.steady_hidden) s += std::to_string(h) + "x";
  s += " tail=";
  for (int h : st.tail_hidden) s += std::to_string(h) + "x";
  s += " steady_inputs=";
  for (bool b : st.steady_inputs) s += b ? "1" : "0";
  char buf[160];
  std::snprintf(
      buf, sizeof buf, " epochs=%d batch=%d lr=%.9g lr_final=%.9g wd=%.9g ovh=fastest wref=%.9g",
      st.epochs, st.batch, st.lr, st.lr_final_fraction, st.weight_decay, st.weight_ref_ms);
  return s + buf;
}
namespace {

double smape(double pred, double y) { return 2.0 * std::fabs(pred - y) / (pred + y); }

// One ReLU network whose weights live in a slice of the shared parameter vector.
struct Net {
  std::vector<int> widths;  // inputs, hidden..., outputs
  std::vector<std::size_t> w_at, b_at;
  std::vector<double> mean, scale, lo, hi;
  std::vector<std::vector<double>> act, pre, delta;

  Net(std::vector<int> w, std::size_t& size) : widths(std::move(w)) {
    for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
      w_at.push_back(size);
      size += std::size_t(widths[l]) * widths[l + 1];
      b_at.push_back(size);
      size += std::size_t(widths[l + 1]);
    }
    for (int n : widths) {
      act.emplace_back(n, 0.0);
      pre.emplace_back(n, 0.0);
      delta.emplace_back(n, 0.0);
    }
  }
  std::size_t layers() const { return w_at.size(); }

  void init(std::vector<double>& p, std::vector<double>& decay, double wd, Rng& rng) const {
    for (std::size_t l = 0; l < layers(); ++l) {
      const int in = widths[l], out = widths[l + 1];
      const bool last = l + 1 == layers();
      const double sd = last ? 0.1 / std::sqrt(double(in)) : std::sqrt(2.0 / double(in));
      for (std::size_t k = 0; k < std::size_t(in) * out; ++k) {
        p[w_at[l] + k] = sd * rng.normal();
        decay[w_at[l] + k] = wd;
      }
    }
  }

  const double* forward(const std::vector<double>& p, const Sample& s) {
    for (int i = 0; i < widths[0]; ++i) act[0][i] = (s.x[i] - mean[i]) * scale[i];
    const std::size_t L = layers();
    for (std::size_t l = 0; l < L; ++l) {
      const int in = widths[l], out = widths[l + 1];
      const double* w = &p[w_at[l]];
      const double* bb = &p[b_at[l]];
      for (int o = 0; o < out; ++o) {
        double z = bb[o];
        for (int i = 0; i < in; ++i) z += w[std::size_t(o) * in + i] * act[l][i];
        pre[l + 1][o] = z;
        act[l + 1][o] = (l + 1 == L) ? z : std::max(z, 0.0);
      }
    }
    return act[L].data();
  }

  // delta.back() holds d loss / d outputs; accumulates into grad.
  void backward(const std::vector<double>& p, std::vector<double>& grad) {
    for (std::size_t l = layers(); l >= 1; --l) {
      const int in = widths[l - 1], out = widths[l];
      double* gw = &grad[w_at[l - 1]];
      double* gb = &grad[b_at[l - 1]];
      const double* w = &p[w_at[l - 1]];
      for (int o = 0; o < out; ++o) {
        const double d = delta[l][o];
        if (d == 0.0) continue;
        gb[o] += d;
        for (int i = 0; i < in; ++i) gw[std::size_t(o) * in + i] += d * act[l - 1][i];
      }
      if (l > 1)
        for (int i = 0; i < in; ++i) {
          double s = 0;
          for (int o = 0; o < out; ++o) s += w[std::size_t(o) * in + i] * delta[l][o];
          delta[l - 1][i] = pre[l - 1][i] > 0 ? s : 0.0;
        }
    }
  }

  Mlp to_mlp(const std::vector<double>& p) const {
    Mlp m;
    m.mean = mean;
    m.scale = scale;
    m.lo = lo;
    m.hi = hi;
    for (std::size_t l = 0; l < layers(); ++l) {
      MlpLayer L;
      L.in = widths[l];
      L.out = widths[l + 1];
      L.w.assign(p.begin() + std::ptrdiff_t(w_at[l]),
                 p.begin() + std::ptrdiff_t(w_at[l] + std::size_t(L.in) * L.out));
      L.b.assign(p.begin() + std::ptrdiff_t(b_at[l]),
                 p.begin() + std::ptrdiff_t(b_at[l] + std::size_t(L.out)));
      m.layers.push_back(std::move(L));
    }
    m.prepare();
    return m;
  }
};

std::vector<int> widths_of(int inputs, const std::vector<int>& hidden, int outputs) {
  std::vector<int> w{inputs};
  w.insert(w.end(), hidden.begin(), hidden.end());
  w.push_back(outputs);
  return w;
}

}  // namespace

double overhead_cap_ms(const FamilyData& d) {
  std::map<const GpuSpec*, double> fastest;
  for (const Sample& s : d.samples) {
    auto [it, fresh] = fastest.emplace(s.gpu, s.latency_ms);
    if (!fresh) it->second = std::min(it->second, s.latency_ms);
  }
  double cap = 0;
  for (const auto& [gpu, ms] : fastest) cap = std::max(cap, ms);
  return cap;
}

FitResult fit_family(const FamilyData& data, const FitSettings& st, std::uint64_t seed,
                     const std::function<void(int, double)>& on_epoch) {
  const int nin = data.features;
  const std::size_t n = data.samples.size();
  std::size_t size = 0;
  Net steady(widths_of(nin, st.steady_hidden, 1), size);
  Net tail(widths_of(nin, st.tail_hidden, 2), size);

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
  for (Net* net : {&steady, &tail}) {
    net->mean = mean;
    net->scale = scale;
    net->lo = lo;
    net->hi = hi;
  }
  for (int i = 0; i < nin; ++i)
    if (i >= int(st.steady_inputs.size()) || !st.steady_inputs[i]) steady.scale[i] = 0.0;

  Rng rng(seed);
  std::vector<double> p(size, 0.0), decay(size, 0.0), grad(size, 0.0);
  steady.init(p, decay, st.weight_decay, rng);
  tail.init(p, decay, st.weight_decay, rng);
  p[steady.b_at.back()] = 1.0;     // gamma ~ 0.73
  p[tail.b_at.back()] = -1.0;      // alpha ~ 0.27
  p[tail.b_at.back() + 1] = -2.0;  // overhead ~ 12% of its cap

  AdamW opt(size);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const std::size_t batches = (n + std::size_t(st.batch) - 1) / std::size_t(st.batch);
  const double total_steps = double(std::max<std::size_t>(batches, 1)) * st.epochs;
  double step_no = 0;

  FitResult res;
  for (int epoch = 1; epoch <= st.epochs; ++epoch) {
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    double epoch_loss = 0;
    for (std::size_t b0 = 0; b0 < n; b0 += std::size_t(st.batch)) {
      const std::size_t b1 = std::min(n, b0 + std::size_t(st.batch));
      std::fill(grad.begin(), grad.end(), 0.0);
      for (std::size_t bi = b0; bi < b1; ++bi) {
        const Sample& s = data.samples[order[bi]];
        const double g = sigmoid(steady.forward(p, s)[0]);
        const double* t = tail.forward(p, s);
        const double a = sigmoid(t[0]), sc = sigmoid(t[1]);
        const double c = st.overhead_max_ms * sc;
        const double W = std::max(s.waves, 1.0);
        const double u = std::max(g * (1.0 - a / W), 1e-6);
        const double core = W * s.tile_ms / u;
        const double pred = core + c;
        const double y = s.latency_ms;
        epoch_loss += smape(pred, y);
        const double weight =
            st.weight_ref_ms > 0 ? 1.0 + std::log2(1.0 + y / st.weight_ref_ms) : 1.0;
        const double dpred = weight * (pred > y ? 1.0 : -1.0) * 4.0 * y / ((pred + y) * (pred + y));
        const double du = dpred * (-core / u);
        steady.delta.back()[0] = du * (1.0 - a / W) * g * (1.0 - g);
        tail.delta.back()[0] = du * (-g / W) * a * (1.0 - a);
        tail.delta.back()[1] = dpred * st.overhead_max_ms * sc * (1.0 - sc);
        steady.backward(p, grad);
        tail.backward(p, grad);
      }
      const double inv = 1.0 / double(b1 - b0);
      for (double& v : grad) v *= inv;
      const double t = step_no / total_steps;
      const double lr = st.lr * (st.lr_final_fraction + (1 - st.lr_final_fraction) * 0.5 *
                                                            (1 + std::cos(3.141592653589793 * t)));
      opt.step(p, grad, decay, lr);
      step_no += 1;
    }
    epoch_loss /= double(std::max<std::size_t>(n, 1));
    if (epoch == 1) res.first_loss = epoch_loss;
    res.last_loss = epoch_loss;
    if (on_epoch) on_epoch(epoch, epoch_loss);
  }
  res.steady = steady.to_mlp(p);
  res.tail = tail.to_mlp(p);
  return res;
}

nlohmann::ordered_json family_entry(const FamilyData& data, const FitResult& fit,
                                    const std::vector<std::string>& features,
                                    double overhead_max_ms) {
  nlohmann::ordered_json entry;
  entry["rows"] = data.samples.size();
  entry["train_smape"] = round7(fit.last_loss);
  entry["features"] = features;
  entry["overhead_max_ms"] = overhead_max_ms;
  return entry;
}

void add_nets(nlohmann::ordered_json& entry, const FitResult& fit) {
  entry["steady"] = net_json(fit.steady);
  entry["tail"] = net_json(fit.tail);
}

}  // namespace tilecast::train
