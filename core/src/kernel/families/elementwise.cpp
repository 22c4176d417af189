// Element-wise ops: PyTorch's vectorized kernel, blocks of the library's elements per block.
// A `u` suffix: one tensor operand and a scalar.
#include "kernel/family.hpp"
#include "learned/features.hpp"

namespace tilecast {
namespace elementwise_detail {  // named, not anonymous: unity builds put the families in one file

using In = FeatureInputs;

// In registry order: the ids Op::add .. Op::tanh.
constexpr Op kOps[] = {Op::add, Op::addu, Op::mul,  Op::mulu, Op::div, Op::divu,
                       Op::pow, Op::powu, Op::relu, Op::gelu, Op::tanh};
constexpr const char* kNames[] = {"add", "addu", "mul",  "mulu", "div", "divu",
                                  "pow", "powu", "relu", "gelu", "tanh"};

double elements(const Kernel& k) { return double(k.dims[0]) * double(k.dims[1]); }

double flops(const Kernel& k) {
  const double elems = elements(k);
  switch (k.op) {
    case Op::gelu: return 8.0 * elems;
    case Op::tanh: return 6.0 * elems;
    case Op::pow:
    case Op::powu: return 2.0 * elems;
    default: return elems;
  }
}

double bytes(const Kernel& k) {
  const double size = dtype_bytes(k.dtype);
  const double elems = elements(k);
  switch (k.op) {
    case Op::add:
    case Op::mul:
    case Op::div:
    case Op::pow: return 3.0 * size * elems;  // two inputs, one output
    default: return 2.0 * size * elems;       // one input (scalar operand aside), one output
  }
}

TilePlan plan(const PlanInputs& in) {
  return plan_elementwise(in.kernel, in.library, in.gpu.num_sm);
}

}  // namespace elementwise_detail

FamilyTraits elementwise_family() {
  using namespace elementwise_detail;
  FamilyTraits t;
  t.name = "elementwise";
  std::vector<Feature> one_hot;  // which op
  for (std::size_t i = 0; i < std::size(kOps); ++i) {
    t.ops.push_back({kNames[i], {"B", "H"}});
    one_hot.push_back({"is_" + std::string(kNames[i]),
                       [](const In& in, int op) { return int(in.kernel.op) == op ? 1.0 : 0.0; },
                       int(kOps[i])});
  }
  t.plan = plan;
  t.features = with_common_features(std::move(one_hot));
  t.elements = elements;
  t.flops = flops;
  t.bytes = bytes;
  t.fit = {{16, 16}, {32, 32}, 40, 1.0};
  return t;
}

}  // namespace tilecast
