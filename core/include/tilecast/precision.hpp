// Data types a kernel computes in, and the GPU units that run them: what selects a kernel's
// element size and which datasheet peak bounds it.
#pragma once

#include <string_view>

namespace tilecast {

enum class DataType { fp32, tf32, fp16, bf16, fp8, int8, fp4 };
inline constexpr int kDataTypeCount = 7;

// Vector (CUDA cores, AMD SIMD units) or tensor (tensor cores, AMD matrix cores) units.
enum class ComputeUnit { vector, tensor };
inline constexpr int kComputeUnitCount = 2;

std::string_view dtype_name(DataType t);      // "fp32", "bf16", ...
DataType parse_dtype(std::string_view name);  // throws Error listing the known data types
// Bytes per element in memory: fp32 and tf32 (stored as FP32) 4, fp16 and bf16 2, fp8 and
// int8 1, fp4 0.5625 (NVFP4: 4-bit values and one FP8 scale per block of 16).
double dtype_bytes(DataType t);

std::string_view unit_name(ComputeUnit u);  // "vector" | "tensor"

}  // namespace tilecast
