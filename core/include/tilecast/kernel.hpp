// One GPU kernel as PyTorch launches it: an operator and its shape.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace tilecast {

// clang-format off
enum class Op {
  linear, bmm,                                                   // GEMMs: dims B,M,N,K
  add, addu, mul, mulu, div, divu, pow, powu, relu, gelu, tanh,  // element-wise: dims B,H
  softmax, ln,                                                   // row-wise: dims B,H
};
// clang-format on

enum class OpFamily { gemm, elementwise, softmax, layernorm };

inline constexpr int kOpCount = 15;

std::string_view op_name(Op op);
Op parse_op(std::string_view name);  // throws Error listing the known ops
OpFamily op_family(Op op);
bool is_gemm(Op op);

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
  // Every field takes part, so a cache of forecasts can key on the whole kernel.
  friend auto operator<=>(const Kernel&, const Kernel&) = default;
};

// Builds a kernel, validating the dims count and range (1 .. kMaxKernelDim).
Kernel make_kernel(Op op, const std::int64_t* dims, std::size_t count);
// Parses "B,M,N,K" or "B,H".
Kernel parse_kernel(std::string_view op, std::string_view dims_csv);
std::string dims_to_string(const Kernel& k);

double kernel_flops(const Kernel& k);     // floating-point operations
double kernel_bytes(const Kernel& k);     // minimal DRAM traffic, FP32
double kernel_elements(const Kernel& k);  // output elements

}  // namespace tilecast
