// Measured kernels in the NeuSight dataset's CSV format (one row per kernel launch: op,
// shape, latency, the library kernel and its grid), parsed and validated.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/kernel.hpp"

namespace tilecast {

struct MeasuredKernel {
  std::string device;  // the CSV's Device, e.g. "Tesla T4"
  Kernel kernel;
  double latency_ms = 0;
  std::string kernel_name;  // the CUDA kernel launched ("" when the CSV has none)
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::string origin;  // "file:line", for error messages
};

// Parses a kernel CSV (header row first). Rows of ops tilecast does not model
// (conv) are skipped. Throws tilecast::Error naming `origin`, the line and the field.
std::vector<MeasuredKernel> parse_kernel_csv(std::string_view csv_text, std::string_view origin);

}  // namespace tilecast
