// The LLM-serving kernels that run one threadblock per token (vLLM/Sarathi custom CUDA kernels
// and PyTorch's embedding gather): RMSNorm, rotary embedding, SiLU-and-mul and the embedding
// lookup, dims B,H (tokens, features per token). They load scalar 2-byte elements, so their
// streaming rate is bounded by the loads the resident threads keep in flight as well as by
// bandwidth (`scalar_loads`, learned/features.cpp). Trained on the vidur FP16 data only
// (`tilecast train-fp16`); FP32 has no model for them.
#include <algorithm>
#include <string>

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
};
constexpr TokenOp kOps[] = {
    {"rmsnorm", 4, 2},   // square, sum, scale, weight; read x once (twice from L1), write once
    {"rotary", 3, 2},    // q and k in place: read and write each element (the cos/sin cache
                         // is small and cached)
    {"silu_mul", 6, 3},  // H outputs from 2H inputs: gate and up read, product written
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
// vLLM's launch of each kernel (csrc/layernorm_kernels.cu, pos_encoding_kernels.cu,
// activation_kernels.cu): RMSNorm and SiLU-and-mul min(H, 1024) threads a token, rotary
// min(H / 2, 512) (H: the q and k features it turns); the gather none of these (0).
std::int64_t block_threads(const Kernel& k) {
  const std::int64_t h = k.dims[1];
  const std::string& name = op_traits(k.op).name;
  if (name == "rotary") return std::clamp<std::int64_t>(h / 2, 32, 512);
  if (name == "rmsnorm" || name == "silu_mul") return std::clamp<std::int64_t>(h, 32, 1024);
  return 0;
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
