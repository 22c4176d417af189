// One GPU kernel as PyTorch launches it: an operator, its shape and its data type. Ops belong
// to families (core/src/kernel/families/): the built-in ones are named below, and a registered
// family's ops take the ids after them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>

#include "tilecast/precision.hpp"

namespace tilecast {

// The built-in ops, in registry order. An Op may hold ids beyond these (registered families).
// clang-format off
enum class Op {
  linear, bmm,                                                   // GEMMs: dims B,M,N,K
  add, addu, mul, mulu, div, divu, pow, powu, relu, gelu, tanh,  // element-wise: dims B,H
  softmax, ln,                                                   // row-wise: dims B,H
};
// clang-format on

// The built-in families; registered families take the ids after them.
enum class OpFamily { gemm, elementwise, softmax, layernorm };

inline constexpr int kOpCount = 15;  // built-in ops

std::string_view op_name(Op op);
Op parse_op(std::string_view name);  // throws Error listing the known ops
OpFamily op_family(Op op);
bool is_gemm(Op op);
// How many dims the op takes (4 for GEMMs, 2 for element and row ops) and their names.
std::size_t op_dim_count(Op op);
std::string op_dims_label(Op op);  // e.g. "B,M,N,K"

// The largest kernel dimension: 2^40 (about 1.1e12). A tensor dimension beyond it would not
// fit in any GPU's memory (2^40 one-byte elements are 1 TiB), while up to it every count the
// forecast derives stays finite: elements, FLOPs and bytes are products of dims taken in double,
// and tile counts are capped in 64 bits. Builders that compute dims (batch x heads x seq, ...)
// check against this limit before making a kernel.
inline constexpr std::int64_t kMaxKernelDim = std::int64_t{1} << 40;

// dims: B,M,N,K for GEMMs (batch B of MxN times NxK; linear has B=1, M rows,
// N in-features, K out-features) or B,H for row/element ops (dims[2..3] = 1).
struct Kernel {
  Op op = Op::add;
  std::array<std::int64_t, 4> dims{1, 1, 1, 1};
  DataType dtype = DataType::fp32;
  // Every field takes part, so a cache of forecasts can key on the whole kernel. (Spelled
  // out: Emscripten's libc++ has no <=> for std::array.)
  friend bool operator==(const Kernel&, const Kernel&) = default;
  friend bool operator<(const Kernel& a, const Kernel& b) {
    return std::tie(a.op, a.dtype, a.dims) < std::tie(b.op, b.dtype, b.dims);
  }
};

// Builds a kernel, validating the dims count and range (1 .. kMaxKernelDim).
Kernel make_kernel(Op op, const std::int64_t* dims, std::size_t count,
                   DataType dtype = DataType::fp32);
// Parses "B,M,N,K" or "B,H".
Kernel parse_kernel(std::string_view op, std::string_view dims_csv,
                    DataType dtype = DataType::fp32);
std::string dims_to_string(const Kernel& k);
// "<op> <dims>", e.g. "linear 1,4096,50257,1280": how caveats name a kernel.
std::string kernel_label(const Kernel& k);

double kernel_flops(const Kernel& k);     // floating-point (int8: integer) operations
double kernel_bytes(const Kernel& k);     // minimal DRAM traffic at the dtype's element size
double kernel_elements(const Kernel& k);  // output elements

}  // namespace tilecast
