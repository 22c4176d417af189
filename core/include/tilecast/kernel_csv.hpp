// Measured kernels in the NeuSight dataset's CSV format (one row per kernel launch: op,
// shape, latency, the library kernel and its grid), parsed and validated.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/enum_names.hpp"
#include "tilecast/kernel.hpp"
#include "tilecast/kernel_forecast.hpp"

namespace tilecast {

struct MeasuredKernel {
  std::string device;  // the CSV's Device, e.g. "Tesla T4"
  Kernel kernel;
  double latency_ms = 0;
  std::string kernel_name;  // the CUDA kernel launched ("" when the CSV has none)
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::string origin;  // "file:line", for error messages
  // What the latency holds (the CSV's `Timing`): one isolated PyTorch call, launch included, as
  // the NeuSight and kit rows (`call`, the default), or the kernel alone, timed back to back or
  // on the GPU as vidur's rows (`kernel`); forecast with the matching launch.
  Launch launch = Launch::eager;
};

// The `Timing` column's words: "call" (Launch::eager), "kernel" (Launch::engine).
EnumNames<Launch> kernel_timing_names();

// Parses a kernel CSV (header row first). Rows of ops tilecast does not model
// (conv) are skipped. A row's data type is its `Precision` column (fp32, bf16, ...) where the
// CSV has one, else `default_dtype`; its timing its `Timing` column where there is one. Throws
// tilecast::Error naming `origin`, the line and the field.
std::vector<MeasuredKernel> parse_kernel_csv(std::string_view csv_text, std::string_view origin,
                                             DataType default_dtype = DataType::fp32);

// The data type a kernel CSV's path implies: the measurement kit writes FP32 kernels to
// `kernels/` and those of another type to `kernels-<dtype>/` (docs/measure.md), so a file in a
// folder named `kernels-bf16` holds BF16 kernels. FP32 for any other path; an unknown suffix
// is an error naming the path and the known data types.
DataType kernel_csv_dtype_from_path(std::string_view path);

}  // namespace tilecast
