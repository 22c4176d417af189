// The LLM-serving kernels that run one threadblock per token (vLLM/Sarathi custom CUDA kernels
// and PyTorch's embedding gather): RMSNorm, rotary embedding, SiLU-and-mul and the embedding
// lookup, dims B,H (tokens, features per token). They load scalar 2-byte elements, so their
// streaming rate is bounded by the loads the resident threads keep in flight as well as by
// bandwidth (`scalar_loads`, learned/features.cpp). Trained on the vidur FP16 data only
// (`tilecast train-fp16`); FP32 has no model for them.
#include <algorithm>

#include "kernel/family.hpp"
#include "learned/features.hpp"

namespace tilecast {
namespace token_rows_detail {  // named, not anonymous: unity builds put the families in one file

using In = FeatureInputs;

// In registry order; each op's bytes per element of H as a multiple of the element size.
struct TokenOp {
  const char* name;
  double flops_per_element;
  double elements_moved;  // read and written per element of H
  double issue_ops = 0;   // integer instructions per element where they bound the rate
  // vLLM's launch, a block a token of min(H / features_per_thread, max_block_threads) threads
  // (csrc/layernorm_kernels.cu, pos_encoding_kernels.cu, activation_kernels.cu); 0: not a
  // block a token (the gather runs on PyTorch's grid over the elements)
  std::int64_t features_per_thread = 0, max_block_threads = 0;
};
constexpr TokenOp kOps[] = {
    // square, sum, scale, weight; read x once (twice from L1), write once
    {"rmsnorm", 4, 2, 0, 1, 1024},
    // q and k in place: read and write each element (the cos/sin cache is small and cached);
    // a thread a pair of the features it turns (H: q and k)
    {"rotary", 3, 2, 0, 2, 512},
    // H outputs from 2H inputs: gate and up read, product written
    {"silu_mul", 6, 3, 0, 1, 1024},
    // gather a row of the table, write it: issue-bound index arithmetic (learned/features.hpp)
    {"embedding", 1, 2, kGatherIntOpsPerElement},
};

double elements(const Kernel& k) { return double(k.dims[0]) * double(k.dims[1]); }

const TokenOp& token_op(const Kernel& k) {
  const OpTraits& t = op_traits(k.op);
  for (const TokenOp& op : kOps)
    if (t.name == op.name) return op;
  return kOps[0];
}

double flops(const Kernel& k) { return token_op(k).flops_per_element * elements(k); }
double bytes(const Kernel& k) {
  return token_op(k).elements_moved * dtype_bytes(k.dtype) * elements(k);
}
double issue_ops(const Kernel& k) { return token_op(k).issue_ops; }
std::int64_t block_threads(const Kernel& k) {
  const TokenOp& op = token_op(k);
  if (op.features_per_thread == 0) return 0;
  return std::clamp<std::int64_t>(k.dims[1] / op.features_per_thread, 32, op.max_block_threads);
}
TilePlan plan(const PlanInputs& in) { return plan_rows(in.kernel, in.gpu.num_sm); }

}  // namespace token_rows_detail

FamilyTraits token_rows_family() {
  using namespace token_rows_detail;
  FamilyTraits t;
  t.name = "token_rows";
  // Which op, by name: the ops' ids are assigned at registration.
  std::vector<Feature> one_hot;
  for (std::size_t i = 0; i < std::size(kOps); ++i) {
    t.ops.push_back({kOps[i].name, {"B", "H"}});
    one_hot.push_back({std::string("is_") + kOps[i].name,
                       [](const In& in, int op) {
                         return op_traits(in.kernel.op).name == kOps[std::size_t(op)].name ? 1.0
                                                                                           : 0.0;
                       },
                       int(i)});
  }
  t.plan = plan;
  t.features = with_common_features(std::move(one_hot));
  t.elements = elements;
  t.flops = flops;
  t.bytes = bytes;
  t.scalar_loads = true;
  t.block_threads = block_threads;
  t.issue_ops = issue_ops;
  t.fit = {{16, 16}, {16, 16}, 200, 1.0};
  return t;
}

}  // namespace tilecast
