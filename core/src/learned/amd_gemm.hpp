// The analytic model of FP32 GEMMs on AMD Instinct matrix cores (rocBLAS/Tensile), chosen over
// the learned GEMM net because it carries across GPUs (docs/amd-model.md). Per op (linear, bmm)
// five fitted parameters shared by every AMD GPU, fitted by `tilecast train-amd-gemm`
// (core/data/models/amd-fp32-gemm/gemm.json):
//   latency = tiles / CUs x (max(compute_scale x tile FLOPs / (matrix peak / CUs),
//                                tile_bandwidth_scale x tile bytes / (DRAM bandwidth / CUs))
//                            + tile_kcycles x 1000 cycles / clock)
//             + bandwidth_scale x kernel bytes (split-K partials included) / DRAM bandwidth
//             + overhead_ms,
// the macro tile and split-K from the AMD tile table (learned/tile_table.hpp). Tiles per CU
// unrounded: whole waves (ceil) carried worse from one GPU to the other (docs/amd-model.md).
#pragma once

#include <array>
#include <string_view>

#include "kernel/tiles.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

// The form's physical times of one GEMM on one GPU, before any fitted parameter.
struct AmdGemmTerms {
  double tiles_per_cu = 0;     // tiles / compute units, not rounded up to whole waves
  double tile_compute_ms = 0;  // one tile's FLOPs at one CU's share of the matrix peak
  double tile_memory_ms = 0;   // one tile's A and B panels and output at one CU's DRAM share
  double kcycle_ms = 0;        // 1000 clock cycles
  double memory_ms = 0;        // operands read, output (x split-K) written once, at DRAM bandwidth
};

AmdGemmTerms amd_gemm_terms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan);

struct AmdGemmParams {
  double compute_scale = 0;         // 1 / matrix-core efficiency inside a tile
  double tile_bandwidth_scale = 0;  // 1 / achieved fraction of a CU's DRAM share
  double tile_kcycles = 0;          // fixed cost per tile (prologue, epilogue), 1000s of cycles
  double bandwidth_scale = 0;       // whole-kernel DRAM traffic, added
  double overhead_ms = 0;           // fixed cost per kernel
  bool valid() const { return compute_scale > 0 && tile_bandwidth_scale > 0; }
  double latency_ms(const AmdGemmTerms& t) const;
};

struct AmdGemmModel {
  std::array<AmdGemmParams, 2> ops;  // [linear, bmm]
  bool valid() const { return ops[0].valid() && ops[1].valid(); }
  const AmdGemmParams& of(Op op) const { return ops[op == Op::bmm ? 1 : 0]; }
};

inline constexpr std::string_view kAmdGemmFormat = "tilecast-amd-gemm-1";
inline constexpr std::string_view kAmdGemmForm =
    "tiles/cu*(max(compute_scale*tile_flops/(matrix_peak/cu), "
    "tile_bandwidth_scale*tile_bytes/(mem_bw/cu))+tile_kcycles*1000/clock)"
    "+bandwidth_scale*bytes/mem_bw+overhead_ms";

// Throws tilecast::Error naming `origin` and the field for a malformed file, another format or
// form, a missing op, a non-positive scale or a negative or non-finite parameter.
AmdGemmModel parse_amd_gemm_model(std::string_view json_text, std::string_view origin);

// The embedded model: core/data/models/amd-fp32-gemm (forecast/model_registry.hpp).

}  // namespace tilecast
