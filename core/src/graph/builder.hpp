// Shared pieces of the per-architecture graph builders: a linear layer's forward,
// backward and gradient accumulation, batched matmuls, vector ops with their
// gradients, memory-bound copies. Dimensions are checked as doubles before they
// become kernel dims, so an overflow is an error, never a wrapped integer.
#pragma once

#include <cstdint>
#include <string_view>

#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

class GraphBuilder {
 public:
  GraphBuilder(const Workload& w, OpGraph& graph) : w_(w), graph_(graph) {}

  bool training() const { return w_.training; }
  std::int64_t batch() const { return w_.batch; }
  std::int64_t seq() const { return w_.seq; }
  // a x b (x c), checked to stay within kernel dims.
  static std::int64_t mul(double a, double b, double c = 1);

  void section(std::string_view name, std::int64_t count);

  // y = x W^T (+ b) over `rows` rows. Forward Linear(rows,in,out); backward
  // Linear(rows,out,in) (input gradient) and Linear(out,rows,in) (weight gradient);
  // accumulation of the weight (and bias) gradients.
  void linear(std::string_view name, std::int64_t rows, std::int64_t in, std::int64_t out,
              bool bias, OpKind kind = OpKind::gemm);
  // Batched matmul: forward BMM(b,m,n,k); backward BMM(b,m,k,n) and BMM(b,n,m,k).
  void bmm(std::string_view name, std::int64_t b, std::int64_t m, std::int64_t n, std::int64_t k,
           bool needs_grad = true);

  // A vector op over rows x h with its backward kernels as PyTorch's autograd runs them.
  // `grads`: how many inputs need a gradient (binary ops).
  void vec(std::string_view name, Op op, std::int64_t rows, std::int64_t h, OpKind kind,
           int grads = 1, std::string_view stands_for = {});
  // One forward-only or backward-only vector kernel.
  void vec_fw(std::string_view name, Op op, std::int64_t rows, std::int64_t h, OpKind kind,
              std::string_view stands_for = {});
  void vec_bw(std::string_view name, Op op, std::int64_t rows, std::int64_t h, OpKind kind,
              std::string_view stands_for = {});
  // LayerNorm: forward ln; backward one kernel (mul class); weight and bias accumulation.
  void layer_norm(std::string_view name, std::int64_t rows, std::int64_t h);
  // RMSNorm as eager PyTorch runs it (pow, mean, add eps, rsqrt, mul, weight mul).
  void rms_norm(std::string_view name, std::int64_t rows, std::int64_t h);
  // Dropout with probability p > 0 (skipped when p == 0 or in inference).
  void dropout(std::string_view name, double p, std::int64_t rows, std::int64_t h);
  // A memory-bound copy listing `elements` tensor elements in the phase, forecast as addu.
  void mem(std::string_view name, Phase phase, double elements, std::int64_t h,
           std::string_view stands_for = "copy");
  // An embedding lookup of rows tokens into a table of vocab x h.
  void embedding(std::string_view name, std::int64_t rows, std::int64_t vocab, std::int64_t h);
  // Accumulation of a weight gradient of `elements` elements.
  void accumulate(std::string_view name, double elements);

 private:
  void push(std::string_view name, Op op, std::int64_t d0, std::int64_t d1, std::int64_t d2,
            std::int64_t d3, OpKind kind, Phase phase, double mem = 0,
            std::string_view stands_for = {});
  const Workload& w_;
  OpGraph& graph_;
};

// Per-architecture builders (graph_<arch>.cpp).
void build_gpt2(const ModelConfig& m, GraphBuilder& g);
void build_bert(const ModelConfig& m, GraphBuilder& g);
void build_opt(const ModelConfig& m, GraphBuilder& g);
void build_llama(const ModelConfig& m, GraphBuilder& g);  // llama, mistral, qwen2
void build_switch(const ModelConfig& m, GraphBuilder& g);

}  // namespace tilecast::detail
