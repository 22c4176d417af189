// Sanity of every catalog GPU x every precision it has (issue 29, item 3), all cases at once:
// a large GEMM and a large copy at 0.3-0.95 of the GPU's own peak, no forecast below the
// roofline, a synthetic GPU with 2x bandwidth >= 1.6x faster on memory-bound kernels, one
// with 2x compute >= 1.6x faster on GEMMs, and one with a 2x clock >= 1.6x faster on the
// issue-bound embedding gather (learned/features.hpp, kGatherIntOpsPerElement). What fails today is
// listed, with its figure, in catalog_sanity_gaps.inc: the suite fails when a new case fails, when
// a listed one gets worse, and when a listed one passes (remove it). catalog_scaling_test.cpp holds
// the per-check cases for the (GPU, precision, kernel)s with a learned model; this file covers
// every one. The docs table (docs/catalog-sanity.md) comes from the skipped case at the end, and
// the case after it holds the committed copy to it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/format.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/kernel_forecast.hpp"
#include "tilecast/precision.hpp"

using namespace tilecast;

namespace {

// The checks and their bounds; a figure is a share of peak or a speed-up.
constexpr double kMinShare = 0.3, kMaxShare = 0.95, kMinSpeedup = 1.6;
constexpr const char* kGemmShare = "gemm_share";      // roofline / forecast, large GEMM
constexpr const char* kCopyShare = "copy_share";      // roofline / forecast, large copy
constexpr const char* kRoofline = "above_roofline";   // forecast / roofline, >= 1
constexpr const char* kBandwidth2x = "bandwidth_2x";  // speed-up, memory-bound kernel
constexpr const char* kCompute2x = "compute_2x";      // speed-up, large GEMM
constexpr const char* kClock2x = "clock_2x";          // speed-up, issue-bound kernel

struct Gap {
  const char* gpu;  // catalog id
  const char* precision;
  const char* op;
  const char* check;
  double figure;  // today's figure: a worse one fails too
};

const std::vector<Gap> kKnownGaps = {
#include "catalog_sanity_gaps.inc"
};

// 8192^3 GEMM (1.1 TFLOP) and a 2^28-element copy (x + scalar: read once, write once; 1 GiB
// each way in FP32).
Kernel big_gemm(DataType t) { return parse_kernel("linear", "1,8192,8192,8192", t); }
Kernel big_copy(DataType t) { return parse_kernel("addu", "16384,16384", t); }
// Memory-bound kernels of every family that has one, 2^27-2^28 elements.
std::vector<Kernel> memory_bound(DataType t) {
  std::vector<Kernel> ks = {big_copy(t), parse_kernel("add", "16384,16384", t)};
  for (const char* op : {"softmax", "ln", "rmsnorm", "rotary", "silu_mul"})
    ks.push_back(parse_kernel(op, "16384,8192", t));
  return ks;
}
// The embedding gather: bound by its index arithmetic's instruction issue, not by memory.
Kernel big_gather(DataType t) { return parse_kernel("embedding", "16384,8192", t); }

GpuSpec scaled(GpuSpec gpu, double bandwidth, double compute, double clock = 1) {
  gpu.mem_bw_gbps *= bandwidth;
  gpu.clock_mhz *= clock;
  gpu.fp32_gflops *= compute;
  gpu.fp32_matrix_gflops *= compute;
  for (auto& units : gpu.peak_tflops)
    for (double& tflops : units) tflops *= compute;
  return gpu;
}

// A forecast, or none where the core has no way to forecast this kernel at this precision
// (an Error naming why): such kernels are not part of the checks.
bool try_forecast(const GpuSpec& gpu, const Kernel& k, KernelForecast& out) {
  try {
    out = forecast_kernel(gpu, k);
    return true;
  } catch (const Error&) {
    return false;
  }
}

struct Failure {
  std::string gpu, precision, op, check;
  double figure;
};

std::string round3(double x) { return detail::format_with("%.3f", x); }

std::vector<Failure> failures_today(int& checked) {
  std::vector<Failure> out;
  checked = 0;
  auto check = [&](const GpuSpec& gpu, DataType t, const Kernel& k, const char* what, double figure,
                   bool ok) {
    ++checked;
    if (!ok)
      out.push_back({gpu.id, std::string(dtype_name(t)), std::string(op_name(k.op)), what,
                     std::stod(round3(figure))});
  };
  for (const GpuSpec& gpu : gpu_catalog())
    for (int i = 0; i < kDataTypeCount; ++i) {
      const DataType t = DataType(i);
      if (!gpu_has_precision(gpu, t)) continue;
      KernelForecast f, fast;
      const Kernel gemm = big_gemm(t);
      if (try_forecast(gpu, gemm, f)) {
        const double share = f.roofline_ms / f.latency_ms;
        check(gpu, t, gemm, kGemmShare, share, share >= kMinShare && share <= kMaxShare);
        check(gpu, t, gemm, kRoofline, f.latency_ms / f.roofline_ms, f.latency_ms >= f.roofline_ms);
        if (try_forecast(scaled(gpu, 1, 2), gemm, fast))
          check(gpu, t, gemm, kCompute2x, f.latency_ms / fast.latency_ms,
                f.latency_ms >= kMinSpeedup * fast.latency_ms);
      }
      const GpuSpec fast_memory = scaled(gpu, 2, 1);
      for (const Kernel& k : memory_bound(t)) {
        if (!try_forecast(gpu, k, f)) continue;
        if (k.op == Op::addu) {
          const double share = f.roofline_ms / f.latency_ms;
          check(gpu, t, k, kCopyShare, share, share >= kMinShare && share <= kMaxShare);
        }
        check(gpu, t, k, kRoofline, f.latency_ms / f.roofline_ms, f.latency_ms >= f.roofline_ms);
        if (try_forecast(fast_memory, k, fast))
          check(gpu, t, k, kBandwidth2x, f.latency_ms / fast.latency_ms,
                f.latency_ms >= kMinSpeedup * fast.latency_ms);
      }
      const Kernel gather = big_gather(t);
      if (try_forecast(gpu, gather, f)) {
        check(gpu, t, gather, kRoofline, f.latency_ms / f.roofline_ms,
              f.latency_ms >= f.roofline_ms);
        if (try_forecast(scaled(gpu, 1, 1, 2), gather, fast))
          check(gpu, t, gather, kClock2x, f.latency_ms / fast.latency_ms,
                f.latency_ms >= kMinSpeedup * fast.latency_ms);
      }
    }
  return out;
}

// Whether `now` is no worse than the listed figure (the check's direction).
bool no_worse(const Gap& g, double now) {
  constexpr double kSlack = 0.0015;  // the table's figures are rounded to 3 decimals
  const std::string check = g.check;
  if (check == kRoofline) return now >= g.figure - kSlack;  // never below 1 in a gap either
  if (check == kGemmShare || check == kCopyShare)
    return g.figure > kMaxShare ? now <= g.figure + kSlack : now >= g.figure - kSlack;
  return now >= g.figure - kSlack;  // speed-ups
}

std::string gap_line(const Failure& f) {
  return "{\"" + f.gpu + "\", \"" + f.precision + "\", \"" + f.op + "\", \"" + f.check + "\", " +
         round3(f.figure) + "},";
}

// docs/catalog-sanity.md's table: every catalog GPU x precision, its large GEMM's TFLOP/s and
// share of peak, its large copy's GB/s and share of bandwidth (empty: no forecast of that kernel).
std::string catalog_table() {
  std::ostringstream md;
  md << "| GPU | precision | GEMM TFLOP/s | of peak | copy GB/s | of bandwidth |\n"
     << "|---|---|---:|---:|---:|---:|\n";
  // a kernel's two cells: its rate, `amount` per ms over `per` (FLOP per ms / 1e9 = TFLOP/s,
  // bytes per ms / 1e6 = GB/s) written by `format`, and its share of the roofline; blank when not
  // forecast
  auto cells = [](bool has, double amount, double per, const char* format,
                  const KernelForecast& f) {
    return has ? detail::format_with(format, amount / f.latency_ms / per) + " | " +
                     detail::format_with("%.2f", f.roofline_ms / f.latency_ms)
               : std::string(" | ");
  };
  for (const GpuSpec& gpu : gpu_catalog())
    for (int i = 0; i < kDataTypeCount; ++i) {
      const DataType t = DataType(i);
      if (!gpu_has_precision(gpu, t)) continue;
      KernelForecast g, c;
      const bool has_gemm = try_forecast(gpu, big_gemm(t), g);
      const bool has_copy = try_forecast(gpu, big_copy(t), c);
      if (!has_gemm && !has_copy) continue;
      md << "| " << gpu.id << " | " << dtype_name(t) << " | "
         << cells(has_gemm, g.flops, 1e9, "%.1f", g) << " | "
         << cells(has_copy, c.bytes, 1e6, "%.0f", c) << " |\n";
    }
  return md.str();
}

}  // namespace

TEST_SUITE("catalog-sanity") {
  TEST_CASE("every catalog GPU x precision: shares of peak, roofline, 2x bandwidth, 2x compute") {
    int checked = 0;
    const std::vector<Failure> now = failures_today(checked);
    CHECK(checked > 500);
    std::map<std::string, const Failure*> failing;  // key: gpu precision op check
    auto key = [](const std::string& gpu, const std::string& t, const std::string& op,
                  const std::string& check) { return gpu + " " + t + " " + op + " " + check; };
    for (const Failure& f : now) failing[key(f.gpu, f.precision, f.op, f.check)] = &f;

    std::ostringstream table;  // today's gaps, in catalog_sanity_gaps.inc's format
    for (const Failure& f : now) table << gap_line(f) << "\n";
    INFO("today's failures (catalog_sanity_gaps.inc):\n", table.str());

    std::map<std::string, bool> listed;
    for (const Gap& g : kKnownGaps) {
      const std::string k = key(g.gpu, g.precision, g.op, g.check);
      listed[k] = true;
      auto it = failing.find(k);
      INFO("known gap ", k, " (listed at ", g.figure, ")");
      CHECK_MESSAGE(it != failing.end(), "passes now: remove it from catalog_sanity_gaps.inc");
      if (it != failing.end()) {
        INFO("now ", it->second->figure);
        CHECK(no_worse(g, it->second->figure));
      }
    }
    for (const Failure& f : now) {
      const std::string k = key(f.gpu, f.precision, f.op, f.check);
      INFO("new failure ", k, ": ", f.figure);
      CHECK(listed.count(k) == 1);
    }
  }

  // The docs table: `build/tests/tilecast_tests --test-case='catalog sanity table*' --no-skip`
  // writes docs/catalog-sanity.md's table to $TILECAST_TABLE_OUT (stdout when unset).
  TEST_CASE("catalog sanity table: large-GEMM TFLOP/s and copy GB/s by GPU and precision" *
            doctest::skip()) {
    const std::string md = catalog_table();
    if (const char* out = std::getenv("TILECAST_TABLE_OUT")) {
      std::ofstream(out) << md;
    } else {
      std::fputs(md.c_str(), stdout);
    }
  }

  TEST_CASE("docs/catalog-sanity.md holds today's table (regenerate it as the case above says)") {
    const std::string doc = test::read_file(test::repo_dir() + "/docs/catalog-sanity.md");
    CHECK(doc.find(catalog_table()) != std::string::npos);
  }
}
