// The activation choice, written once for every architecture.
#include <string>

#include "graph/blocks/blocks.hpp"

namespace tilecast::detail {

void activation(GraphBuilder& g, std::string_view name, Activation a, std::int64_t rows,
                std::int64_t width) {
  const std::int64_t R = rows, F = width;
  switch (a) {
    case Activation::gelu_new: {
      // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
      const std::string n(name);
      g.vec(n + " mul", Op::mulu, R, F, OpKind::elementwise);
      g.vec(n + " pow", Op::powu, R, F, OpKind::elementwise);
      g.vec(n + " mul", Op::mulu, R, F, OpKind::elementwise);
      g.vec(n + " add", Op::add, R, F, OpKind::elementwise);
      g.vec(n + " mul", Op::mulu, R, F, OpKind::elementwise);
      g.vec(n + " tanh", Op::tanh, R, F, OpKind::elementwise);
      g.vec(n + " add", Op::addu, R, F, OpKind::elementwise);
      g.vec(n + " mul", Op::mul, R, F, OpKind::elementwise, 2);
      return;
    }
    case Activation::relu: g.vec(name, Op::relu, R, F, OpKind::elementwise); return;
    case Activation::silu: g.vec(name, Op::gelu, R, F, OpKind::elementwise, 1, "silu"); return;
    case Activation::gelu: g.vec(name, Op::gelu, R, F, OpKind::elementwise); return;
  }
}

}  // namespace tilecast::detail
