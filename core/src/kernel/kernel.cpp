#include "tilecast/kernel.hpp"

#include <charconv>
#include <vector>

#include "kernel/family.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

std::string known_ops() {
  std::string s;
  for (int f = 0; f < family_count(); ++f)
    for (const OpTraits& op : family_traits(OpFamily(f)).ops) {
      if (!s.empty()) s += ", ";
      s += op.name;
    }
  return s;
}

}  // namespace

std::string_view op_name(Op op) { return op_traits(op).name; }

Op parse_op(std::string_view name) {
  int id = 0;
  for (int f = 0; f < family_count(); ++f)
    for (const OpTraits& op : family_traits(OpFamily(f)).ops) {
      if (op.name == name) return static_cast<Op>(id);
      ++id;
    }
  throw Error("unknown op '" + std::string(name) + "'; known ops: " + known_ops());
}

bool is_gemm(Op op) { return op_family(op) == OpFamily::gemm; }

std::size_t op_dim_count(Op op) { return op_traits(op).dims.size(); }

std::string op_dims_label(Op op) {
  std::string s;
  for (const std::string& d : op_traits(op).dims) s += (s.empty() ? "" : ",") + d;
  return s;
}

Kernel make_kernel(Op op, const std::int64_t* dims, std::size_t count, DataType dtype) {
  const std::size_t want = op_dim_count(op);
  if (count != want)
    throw Error("op '" + std::string(op_name(op)) + "' takes " + std::to_string(want) + " dims (" +
                op_dims_label(op) + "), got " + std::to_string(count));
  Kernel k;
  k.op = op;
  k.dtype = dtype;
  for (std::size_t i = 0; i < count; ++i) {
    if (dims[i] < 1 || dims[i] > kMaxKernelDim)
      throw Error("dim " + std::to_string(i + 1) + " of op '" + std::string(op_name(op)) + "' is " +
                  std::to_string(dims[i]) + "; allowed: 1 to " + std::to_string(kMaxKernelDim) +
                  " (a larger tensor dimension fits in no GPU's memory)");
    k.dims[i] = dims[i];
  }
  if (const auto validate = family_of(op).validate) validate(k);
  return k;
}

Kernel parse_kernel(std::string_view op_text, std::string_view dims_csv, DataType dtype) {
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
  return make_kernel(op, dims.data(), dims.size(), dtype);
}

std::string dims_to_string(const Kernel& k) {
  const std::size_t n = op_dim_count(k.op);
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i) s += ",";
    s += std::to_string(k.dims[i]);
  }
  return s;
}

std::string kernel_label(const Kernel& k) {
  return std::string(op_name(k.op)) + " " + dims_to_string(k);
}

double kernel_elements(const Kernel& k) { return family_of(k.op).elements(k); }
double kernel_flops(const Kernel& k) { return family_of(k.op).flops(k); }
double kernel_bytes(const Kernel& k) { return family_of(k.op).bytes(k); }

}  // namespace tilecast
