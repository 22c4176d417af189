// The learned model's inputs: log2 of per-SM-normalised tile, wave and GPU quantities, shared
// by inference and the trainer so both see identical numbers. Each family lists its features
// in its traits (kernel/family.hpp): the common ones below, then its own.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/family.hpp"
#include "kernel/library_profile.hpp"
#include "kernel/tiles.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"

namespace tilecast {

struct Features {
  int count = 0;
  std::array<double, kMaxFeatures> v{};
};

Features kernel_features(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan,
                         const LibraryProfile& library);
std::vector<std::string> feature_names(OpFamily family);

// The features every family starts with: tile FLOPs and bytes, wave traffic, the GPU per SM,
// waves, SM fill, kernel bytes over L2, the tile's extent, its intensity over the ridge point
// and the SM count (docs/kernel-model.md, "Features"). `own` follows them.
std::vector<Feature> with_common_features(std::vector<Feature> own);
// The list with the named features kept from the steady net (seen by the tail net only).
std::vector<Feature> tail_only(std::vector<Feature> features,
                               const std::vector<std::string>& names);

// log2, with 1e-30 for zero and below.
double feature_log2(double x);
// log2 of the largest power of two (up to 16) dividing n: how far a kernel can use
// aligned, vectorized loads along that dimension (0 = odd, 4 = a multiple of 16). For a
// row of n floats it also says whether rows start on a 32-byte memory sector.
double log2_alignment(std::int64_t n);

// The streaming rate one resident thread of a scalar-load kernel (FamilyTraits::scalar_loads)
// sustains, bytes/s: one 2-byte element in flight per thread over a ~500 ns DRAM round trip
// (Little's law). With every resident thread loading, an SM streams at most
// max_threads_per_sm x this: on the A100 (2048 threads) 8.2 GB/s per SM, 43% of its HBM's
// share; on the A40 (1536) 6.1 GB/s, 74% of its GDDR6's. Those are the fractions the vidur
// RMSNorm, rotary and SiLU-and-mul kernels reach on the two GPUs (docs/fp16-model.md).
inline constexpr double kScalarLoadBytesPerThreadPerS = 2.0 / 500e-9;

// The resident threads' bound as a share of the GPU's own streaming rate is held at the lowest
// share the training GPUs span (the A100's 0.408 of its learned_mem_bw_gbps; the A40's 0.74),
// not extrapolated below it: a GPU whose bandwidth outgrows its resident threads (H100 0.32, H200
// 0.22, B200 0.15) streams these kernels at that share of its own bandwidth, so twice the bandwidth
// still gives twice the rate (issue 29: the output at the training range's boundary is held, not
// the input). Below the A100's exact share, so the training GPUs' tile times are unchanged
// (tests/fp16_model_test.cpp checks it against the shipped model's training GPUs).
inline constexpr double kScalarLoadMinStreamShare = 0.40;

// A scalar-load kernel of no more blocks than SMs (one token's row per block: a decode step, a
// short prompt) runs one block per SM, alone. Its rate is its own loads in flight over a round
// trip of fixed cycles, so it follows the SM clock, not the bandwidth per SM or the resident
// threads of a full SM: on vidur's rows of at most one block per SM the A40 (1,740 MHz) runs
// RMSNorm, rotary and SiLU-and-mul 1.3-2.2x faster than the A100 (1,410 MHz), whose bandwidth
// per SM is 2.3x the A40's. The rate is taken as the A100's resident-thread rate at its boost
// clock (kLoneBlockThreads x kScalarLoadBytesPerThreadPerS, 8.2 GB/s per SM at 1,410 MHz, its
// tile times unchanged) scaled by the GPU's clock, at most the bandwidth over the kernel's blocks
// (n lone blocks share the memory system); the learned utilization takes the rest
// (docs/fp16-model.md, "Lone blocks").
inline constexpr double kLoneBlockThreads = 2048;
inline constexpr double kLoneBlockReferenceClockMhz = 1410;

// 32-bit integer instructions an SM issues per clock: 64 on NVIDIA GPUs of compute capability
// 7.0 to 9.0 (CUDA C++ Programming Guide, "Arithmetic Instructions": 32-bit integer add,
// subtract, multiply-add, 64 results per clock per multiprocessor) and on AMD CDNA compute units
// (four 16-lane SIMDs).
inline constexpr double kInt32LanesPerSm = 64;

// Integer instructions per element of PyTorch's embedding gather (index_select: each element
// splits its flat index by division and remainder, loads its index, then computes source and
// destination offsets). The gather is issue-bound, not memory-bound: on vidur's FP16 rows of
// 1,024 tokens and more it streams 0.15 of the A100's bandwidth and 0.50 of the A40's, yet
// 0.50 and 0.59 elements per SM per clock. 104 = kInt32LanesPerSm / 0.585, the A100's fastest
// row's elements per SM per clock, rounded down to a multiple of 8 (taken from the A100 alone; the
// A40's fastest row beats it by 5 %); the learned net takes the rest. docs/fp16-model.md,
// "Embedding".
inline constexpr double kGatherIntOpsPerElement = 104;

// One tile's time at full roofline throughput (ms): the larger of its compute at
// peak/SMs and its traffic at bandwidth/SMs (for scalar-load families, at the smaller of
// that and the resident threads' in-flight rate, held at kScalarLoadMinStreamShare of the
// bandwidth's; for issue-bound ops, FamilyTraits::issue_ops, at least its integer instructions
// at kInt32LanesPerSm per clock). Tiles that share operands through L2
// (GEMMs) take the kernel's minimal DRAM traffic per wave at full bandwidth instead. FP32
// GEMM compute runs at the peak times the instruction-issue ceiling (kernel/issue_ceiling.hpp).
double tile_roofline_ms(const GpuSpec& gpu, const Kernel& k, const TilePlan& plan,
                        const LibraryProfile& library);

}  // namespace tilecast
