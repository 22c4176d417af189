#include "tilecast/precision.hpp"

#include <string>

#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

constexpr EnumName<DataType> kDataTypeNames[] = {{"fp32", DataType::fp32}, {"tf32", DataType::tf32},
                                                 {"fp16", DataType::fp16}, {"bf16", DataType::bf16},
                                                 {"fp8", DataType::fp8},   {"int8", DataType::int8},
                                                 {"fp4", DataType::fp4}};
constexpr EnumName<ComputeUnit> kUnits[] = {{"tensor", ComputeUnit::tensor},
                                            {"vector", ComputeUnit::vector}};
// fp4 as NVFP4 stores it: 4-bit E2M1 values with one E4M3 scale per block of 16 (NVIDIA,
// "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference",
// https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/);
// MXFP4 (AMD CDNA 4, OCP Microscaling) has one 8-bit scale per 32: 0.53125, 6 % less.
constexpr double kBytes[kDataTypeCount] = {4, 4, 2, 2, 1, 1, 0.5 + 1.0 / 16};

}  // namespace

EnumNames<DataType> dtype_names() { return kDataTypeNames; }

std::string_view dtype_name(DataType t) { return enum_name(dtype_names(), t); }

DataType parse_dtype(std::string_view name) {
  return parse_enum(dtype_names(), name, "a precision");
}

double dtype_bytes(DataType t) { return kBytes[static_cast<int>(t)]; }

EnumNames<ComputeUnit> unit_names() { return kUnits; }

std::string_view unit_name(ComputeUnit u) { return enum_name(unit_names(), u); }

}  // namespace tilecast
