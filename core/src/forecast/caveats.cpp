#include "tilecast/forecast_caveats.hpp"

#include <set>

#include "learned/weights.hpp"
#include "tilecast/gpu_catalog.hpp"

namespace tilecast {
namespace {

// A dataset device file carries no vendor or architecture: take the catalog entry's.
const GpuSpec& described(const GpuSpec& gpu) {
  if (!gpu.architecture.empty()) return gpu;
  const GpuSpec* known = lookup_gpu(gpu.name);
  return known ? *known : gpu;
}

std::string joined(const std::set<std::string>& items) {
  std::string s;
  std::size_t i = 0;
  for (const std::string& item : items) {
    if (i > 0) s += i + 1 == items.size() ? " and " : ", ";
    s += item;
    ++i;
  }
  return s;
}

struct Measured {
  std::set<std::string> vendors, architectures;
};

// The training GPUs' vendors and architectures, from the embedded weights and catalog.
const Measured& measured() {
  static const Measured m = [] {
    Measured r;
    for (const std::string& name : embedded_kernel_weights().trained_on)
      if (const GpuSpec* g = lookup_gpu(name)) {
        r.vendors.insert(g->vendor);
        if (!g->architecture.empty()) r.architectures.insert(g->architecture);
      }
    return r;
  }();
  return m;
}

}  // namespace

std::vector<std::string> forecast_caveats(const GpuSpec& gpu, Predictor predictor) {
  std::vector<std::string> caveats;
  if (predictor != Predictor::tilecast) return caveats;
  const auto& [vendors, architectures] = measured();
  if (vendors.empty()) return caveats;
  const GpuSpec& g = described(gpu);
  if (!g.vendor.empty() && !vendors.count(g.vendor))
    caveats.push_back("The learned kernel models were trained on " + joined(vendors) +
                      " GPUs only; for " + g.name + " this forecast is an extrapolation" +
                      (g.vendor == "AMD" ? " (on the AMD GPUs checked, MI100 and MI210, "
                                           "forecasts came out well below the measured times)."
                                         : "."));
  else if (!g.architecture.empty() && !architectures.count(g.architecture))
    caveats.push_back("No " + g.architecture + " GPU was measured for training (only " +
                      joined(architectures) +
                      "); forecasts for an unmeasured architecture are less certain, softmax "
                      "and layer norm most of all.");
  return caveats;
}

}  // namespace tilecast
