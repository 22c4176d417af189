// libFuzzer harness over kernel CSV text (the NeuSight / kit format `tilecast eval-kernels` and
// the trainers read from files): parsing either throws tilecast::Error or gives rows, and every
// parsed row forecasts (on a catalog GPU, with the row's precision and timing) to a finite,
// positive latency no lower than its roofline, or throws Error where the GPU lacks the
// precision. Seeds: tests/fuzz/corpus/csv.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_csv.hpp"
#include "tilecast/kernel_forecast.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<tilecast::MeasuredKernel> rows;
  try {
    rows = tilecast::parse_kernel_csv(text, "fuzz.csv");
  } catch (const tilecast::Error&) {
    return 0;
  }
  const tilecast::GpuSpec& gpu = tilecast::find_gpu("h100-sxm");
  std::size_t n = 0;
  for (const auto& r : rows) {
    if (++n > 16) break;  // the parse is what varies; a few forecasts check its rows are whole
    try {
      const tilecast::KernelForecast f =
          tilecast::forecast_kernel(gpu, r.kernel, tilecast::Predictor::tilecast, r.launch);
      if (!std::isfinite(f.latency_ms) || !(f.latency_ms > 0) ||
          f.latency_ms < f.roofline_ms * (1 - 1e-12))
        std::abort();
    } catch (const tilecast::Error&) {
    }
  }
  return 0;
}
