// GEMMs (linear, bmm): threadblock tiles of the library kernel, chosen by the GEMM tile table
// (FP32) or the tensor-core tile rule (every other data type, on tensor cores).
#include "kernel/family.hpp"
#include "kernel/tensor_tiles.hpp"
#include "learned/features.hpp"
#include "learned/tile_table.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace gemm_detail {  // named, not anonymous: unity builds put the families in one file

using In = FeatureInputs;

double elements(const Kernel& k) {
  const auto& d = k.dims;
  return double(d[0]) * double(d[1]) * double(d[3]);
}

double flops(const Kernel& k) {
  const auto& d = k.dims;
  return 2.0 * double(d[0]) * double(d[1]) * double(d[2]) * double(d[3]);
}

// Both operands read and the output written once.
double bytes(const Kernel& k) {
  const auto& d = k.dims;
  return dtype_bytes(k.dtype) * double(d[0]) *
         (double(d[1]) * double(d[2]) + double(d[2]) * double(d[3]) + double(d[1]) * double(d[3]));
}

// FP32 GEMMs take the tile table's tile (measured kernel names); tensor-core GEMMs the
// tensor-core rule (kernel/tensor_tiles.hpp).
TilePlan plan(const PlanInputs& in) {
  const GemmTile tile = in.kernel.dtype == DataType::fp32
                            ? select_gemm_tile(in.gemm_tiles, in.gpu, in.library, in.kernel)
                            : tensor_core_gemm_tile(in.kernel, in.gpu.num_sm);
  return plan_gemm(in.kernel, tile, in.gpu.num_sm);
}

void validate(const Kernel& k) {
  if (k.op == Op::linear && k.dims[0] != 1)
    throw Error("op 'linear' takes B=1 (M rows, N in-features, K out-features), got B=" +
                std::to_string(k.dims[0]));
}

}  // namespace gemm_detail

FamilyTraits gemm_family() {
  using namespace gemm_detail;
  FamilyTraits t;
  t.name = "gemm";
  t.ops = {{"linear", {"B", "M", "N", "K"}}, {"bmm", {"B", "M", "N", "K"}}};
  t.unit = ComputeUnit::tensor;
  t.plan = plan;
  // The op, then the alignment of M, N and K: the library kernels use aligned, vectorized
  // loads when the leading dimensions allow it.
  t.features = with_common_features({
      {"is_linear", [](const In& in, int) { return in.kernel.op == Op::linear ? 1.0 : 0.0; }},
      {"is_bmm", [](const In& in, int) { return in.kernel.op == Op::bmm ? 1.0 : 0.0; }},
      {"log2_align_m", [](const In& in, int) { return log2_alignment(in.kernel.dims[1]); }},
      {"log2_align_n", [](const In& in, int) { return log2_alignment(in.kernel.dims[2]); }},
      {"log2_align_k", [](const In& in, int) { return log2_alignment(in.kernel.dims[3]); }},
  });
  t.elements = elements;
  t.flops = flops;
  t.bytes = bytes;
  t.tiles_share_operands = true;
  t.validate = validate;
  t.fit = {{32, 32}, {32, 32}, 80, 2.0};
  return t;
}

}  // namespace tilecast
