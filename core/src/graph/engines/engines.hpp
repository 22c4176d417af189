// The engines' graph builders (docs/serving.md). One file per engine; the choice
// between them is made once, in engine.cpp.
#pragma once

#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

// An optimised serving engine's prefill or decode pass (fused.cpp).
OpGraph build_fused_graph(const ModelConfig& model, const Workload& w);

// torch.compile's fusion of an eager graph (compiled.cpp): every maximal run of consecutive
// non-GEMM kernels of one phase within a section becomes one fused op.
OpGraph fuse_vector_chains(const OpGraph& eager);

}  // namespace tilecast::detail
