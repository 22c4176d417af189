#include "tilecast/kernel.hpp"

#include <charconv>
#include <vector>

#include "tilecast/error.hpp"

namespace tilecast {
namespace {

constexpr std::string_view kNames[kOpCount] = {"linear", "bmm",  "add",  "addu",    "mul",
                                               "mulu",   "div",  "divu", "pow",     "powu",
                                               "relu",   "gelu", "tanh", "softmax", "ln"};

std::string known_ops() {
  std::string s;
  for (auto n : kNames) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

}  // namespace

std::string_view op_name(Op op) { return kNames[static_cast<int>(op)]; }

Op parse_op(std::string_view name) {
  for (int i = 0; i < kOpCount; ++i)
    if (kNames[i] == name) return static_cast<Op>(i);
  throw Error("unknown op '" + std::string(name) + "'; known ops: " + known_ops());
}

bool is_gemm(Op op) { return op == Op::linear || op == Op::bmm; }

OpFamily op_family(Op op) {
  if (is_gemm(op)) return OpFamily::gemm;
  if (op == Op::softmax) return OpFamily::softmax;
  if (op == Op::ln) return OpFamily::layernorm;
  return OpFamily::elementwise;
}

Kernel make_kernel(Op op, const std::int64_t* dims, std::size_t count) {
  const std::size_t want = is_gemm(op) ? 4 : 2;
  if (count != want)
    throw Error("op '" + std::string(op_name(op)) + "' takes " + std::to_string(want) + " dims (" +
                (want == 4 ? "B,M,N,K" : "B,H") + "), got " + std::to_string(count));
  Kernel k;
  k.op = op;
  for (std::size_t i = 0; i < count; ++i) {
    if (dims[i] < 1 || dims[i] > kMaxKernelDim)
      throw Error("dim " + std::to_string(i + 1) + " of op '" + std::string(op_name(op)) + "' is " +
                  std::to_string(dims[i]) + "; allowed: 1 to " + std::to_string(kMaxKernelDim) +
                  " (a larger tensor dimension fits in no GPU's memory)");
    k.dims[i] = dims[i];
  }
  if (op == Op::linear && k.dims[0] != 1)
    throw Error("op 'linear' takes B=1 (M rows, N in-features, K out-features), got B=" +
                std::to_string(k.dims[0]));
  return k;
}

Kernel parse_kernel(std::string_view op_text, std::string_view dims_csv) {
  Op op = parse_op(op_text);
  std::vector<std::int64_t> dims;
  std::size_t start = 0;
  while (start <= dims_csv.size()) {
    std::size_t end = dims_csv.find(',', start);
    if (end == std::string_view::npos) end = dims_csv.size();
    std::string_view part = dims_csv.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
      throw Error("dims '" + std::string(dims_csv) + "': '" + std::string(part) +
                  "' is not a positive whole number");
    dims.push_back(v);
    if (dims.size() > 8) break;
    start = end + 1;
  }
  return make_kernel(op, dims.data(), dims.size());
}

std::string dims_to_string(const Kernel& k) {
  const int n = is_gemm(k.op) ? 4 : 2;
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i) s += ",";
    s += std::to_string(k.dims[i]);
  }
  return s;
}

double kernel_elements(const Kernel& k) {
  const auto& d = k.dims;
  if (is_gemm(k.op)) return double(d[0]) * double(d[1]) * double(d[3]);
  return double(d[0]) * double(d[1]);
}

double kernel_flops(const Kernel& k) {
  const auto& d = k.dims;
  const double elems = kernel_elements(k);
  switch (op_family(k.op)) {
    case OpFamily::gemm: return 2.0 * double(d[0]) * double(d[1]) * double(d[2]) * double(d[3]);
    case OpFamily::softmax: return 5.0 * elems;    // max, sub, exp, sum, div
    case OpFamily::layernorm: return 8.0 * elems;  // mean, var, normalise, scale, shift
    case OpFamily::elementwise: break;
  }
  switch (k.op) {
    case Op::gelu: return 8.0 * elems;
    case Op::tanh: return 6.0 * elems;
    case Op::pow:
    case Op::powu: return 2.0 * elems;
    default: return elems;
  }
}

double kernel_bytes(const Kernel& k) {
  constexpr double kFloat = 4.0;
  const auto& d = k.dims;
  const double elems = kernel_elements(k);
  if (is_gemm(k.op))
    return kFloat * double(d[0]) *
           (double(d[1]) * double(d[2]) + double(d[2]) * double(d[3]) +
            double(d[1]) * double(d[3]));
  switch (k.op) {
    case Op::add:
    case Op::mul:
    case Op::div:
    case Op::pow: return 3.0 * kFloat * elems;  // two inputs, one output
    default: return 2.0 * kFloat * elems;       // one input (scalar operand aside), one output
  }
}

}  // namespace tilecast
