// A vendor's kernel library as the tile plans see it: the launch rules of the PyTorch kernels
// (block sizes, grid limits, the softmax kernel choice). One JSON file per library in
// core/data/libraries/, embedded like the GPU catalog; a GPU uses its vendor's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

struct LibraryProfile {
  std::string id;         // file stem, e.g. "cuda-pytorch"
  std::string vendor;     // GPU vendor it serves, as in the catalog's "vendor"
  int warp_threads = 32;  // threads per warp (wavefront on AMD)
  // Element-wise kernels: elements per block, doubled while the grid would exceed
  // elementwise_max_blocks blocks.
  std::int64_t elementwise_block_elements = 512;
  double elementwise_max_blocks = 1048576;
  // Softmax: rows of at most this many columns run a warp per row (softmax_warp_forward);
  // longer rows a block per row of the power of two >= min(H / ilp, max threads) / 2 threads,
  // at least a warp.
  std::int64_t softmax_warp_max_cols = 1024;
  std::int64_t softmax_block_ilp = 4;
  std::int64_t softmax_max_block_threads = 1024;
  // A block size the library launches for every row longer than softmax_warp_max_cols, in
  // place of the rule above (ROCm: 1024 threads at any length); 0 = the rule.
  std::int64_t softmax_fixed_block_threads = 0;
  // Layer norm: elements one pass of a block loads (32x4 threads x float4).
  std::int64_t layernorm_elements_per_pass = 512;
  // Threads of its block (one block per row): how many rows an SM holds at once.
  std::int64_t layernorm_block_threads = 128;
  // Row lengths the vectorized layer norm kernel takes: multiples of this many elements; other
  // rows run the library's two-kernel fallback, which no training row measured (a caveat).
  std::int64_t layernorm_vector_elements = 4;
  // Resident threads per SM when the GPU spec does not say.
  int default_threads_per_sm = 2048;
  // Share of an FP32 GEMM main loop's instructions that are FMAs (the rest: shared-memory
  // loads, address and loop arithmetic); 0 = not stated. Bounds SGEMM on issue-limited SMs.
  double sgemm_fma_instruction_share = 0;
  // Share of the DRAM peak the learned models assume of a GPU whose vendor states none
  // (kernel/dram_efficiency.cpp); 0 = memory time against the datasheet peak on every GPU.
  double typical_dram_efficiency = 0;
  // The GEMM library's kernel generation per GPU architecture (cuBLAS: "maxwell" kernels on
  // Pascal, "volta" on Volta and Turing, "ampere" (sm80) on Ampere and later): a GPU the tile
  // table never measured takes the tiles of a measured GPU of its generation, since the
  // library picks among that generation's kernels. Empty: no generation known.
  std::vector<std::pair<std::string, std::string>> gemm_kernel_generation_by_architecture;
  // Architectures whose generation above is assumed, not read from any GPU's kernel names: their
  // GEMM forecasts say so (forecast/caveats.cpp): in the protocol's Ampere fold, with no GPU of
  // its generation measured, the tiles made most of the GEMM error (docs/generalization.md).
  std::vector<std::string> gemm_kernel_generation_assumed_for;
  // Tensor-core GEMMs of these ops and types whose operands' leading dimensions (K and N) are
  // not a multiple of `misaligned_gemm_aligned_bytes`: the library runs older kernels with narrow
  // loads (cuBLAS's cutlass_75/cutlass_80 "align1"/"align2" ones), which take at least measured
  // multiples of the roofline's compute and memory times, per class of alignment (ascending);
  // an op in `misaligned_gemm_min_rows` from that many rows (M) up, the fewest its measurements
  // had (a decode step's one-row attention bmm is outside them). Empty: no such rule.
  struct MisalignedGemmClass {
    std::int64_t max_align_bytes = 0;  // the class: alignments up to this many bytes
    double compute_multiple = 1;       // of the FLOPs at the tensor peak
    double memory_multiple = 1;        // of the bytes at the DRAM bandwidth
  };
  std::vector<Op> misaligned_gemm_ops;
  std::vector<DataType> misaligned_gemm_types;
  std::int64_t misaligned_gemm_aligned_bytes = 0;
  std::vector<std::pair<Op, std::int64_t>> misaligned_gemm_min_rows;
  std::vector<MisalignedGemmClass> misaligned_gemm_classes;

  // Compute capabilities (major x 10 + minor, GpuSpec::compute_capability) on which the library
  // runs torch._grouped_mm on BF16 operands as one grouped GEMM kernel; elsewhere (and on other
  // types) PyTorch's fallback copies the groups' offsets to the host and runs a GEMM per group.
  // Transformers 5's grouped_mm experts call it (graph/blocks/moe.cpp). Empty: the fallback.
  std::vector<int> grouped_mm_bf16_kernel_capabilities;

  // The generation of `architecture`, or "" when the profile does not name one.
  std::string_view gemm_kernel_generation(std::string_view architecture) const;
  // Whether that generation is an assumption (gemm_kernel_generation_assumed_for).
  bool gemm_kernel_generation_assumed(std::string_view architecture) const;
  // The class of a misaligned GEMM (above), or null when the rule does not apply (another op or
  // type, fewer rows, aligned, or no rule).
  const MisalignedGemmClass* misaligned_gemm_class(const Kernel& k) const;
};

// The largest power of two, in bytes, dividing the leading dimensions (K and N) of a GEMM's
// operands at its element width; 0 for a type narrower than a byte (packed FP4) or not a GEMM.
std::int64_t gemm_alignment_bytes(const Kernel& k);

// Throws tilecast::Error naming `origin` and the bad field.
LibraryProfile parse_library_profile(std::string_view json_text, std::string_view origin);
// The embedded profiles (core/data/libraries/*.json), in file order.
const std::vector<LibraryProfile>& library_profiles();
// The profile of the GPU's vendor; throws when no profile serves it.
const LibraryProfile& library_profile_for(const GpuSpec& gpu);
const LibraryProfile& library_profile_for(std::string_view vendor);
// Whether the GPU's library runs torch._grouped_mm on BF16 as one kernel
// (grouped_mm_bf16_kernel_capabilities): the one place that decides it for the graph builders
// (Workload::grouped_mm_bf16_kernel, set by build_gpu_graph: tilecast/model_forecast.hpp).
bool grouped_mm_bf16_kernel(const GpuSpec& gpu);

// The embedded CUDA (NVIDIA) profile, the one the learned models were measured with.
const LibraryProfile& cuda_library_profile();

}  // namespace tilecast
