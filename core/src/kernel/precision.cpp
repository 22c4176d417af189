#include "tilecast/precision.hpp"

#include <string>

#include "tilecast/error.hpp"

namespace tilecast {
namespace {

constexpr std::string_view kNames[kDataTypeCount] = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
constexpr double kBytes[kDataTypeCount] = {4, 4, 2, 2, 1, 1};

}  // namespace

std::string_view dtype_name(DataType t) { return kNames[static_cast<int>(t)]; }

DataType parse_dtype(std::string_view name) {
  for (int i = 0; i < kDataTypeCount; ++i)
    if (kNames[i] == name) return static_cast<DataType>(i);
  std::string known;
  for (auto n : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
  throw Error("unknown precision '" + std::string(name) + "'; allowed: " + known);
}

double dtype_bytes(DataType t) { return kBytes[static_cast<int>(t)]; }

std::string_view unit_name(ComputeUnit u) { return u == ComputeUnit::tensor ? "tensor" : "vector"; }

}  // namespace tilecast
