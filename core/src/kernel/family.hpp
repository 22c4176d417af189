// Op families as data: one traits table per family (its ops and their shapes, tile plan,
// learned-model features, FLOPs, bytes and fit settings), one file each in kernel/families/,
// listed in kernel/families/registry.cpp. Forecasting, training and validation all read a
// kernel's family from here; nothing else switches on ops.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernel/library_profile.hpp"
#include "kernel/tiles.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

struct TileTable;  // learned/tile_table.hpp: the GEMM tile choice

inline constexpr int kMaxFeatures = 32;  // learned-model inputs per family

struct OpTraits {
  std::string name;               // as in CSVs and on the command line, e.g. "linear"
  std::vector<std::string> dims;  // shape signature, e.g. {"B", "M", "N", "K"}; at most 4
};

// What a tile plan is chosen from.
struct PlanInputs {
  const GpuSpec& gpu;
  const Kernel& kernel;
  const LibraryProfile& library;
  const TileTable& gemm_tiles;
};

// What a learned-model feature is computed from.
struct FeatureInputs {
  const GpuSpec& gpu;
  const Kernel& kernel;
  const TilePlan& plan;
  const LibraryProfile& library;
  double sm;           // SMs, at least 1
  double peak_gflops;  // the kernel's compute peak (roofline.hpp)
};

// One input of the learned model: its name (as in kernel_weights.json) and how it is computed,
// in one entry so names and values cannot disagree.
struct Feature {
  std::string name;
  double (*value)(const FeatureInputs& in, int arg) = nullptr;
  int arg = 0;         // passed to `value`, e.g. the op of a one-hot
  bool steady = true;  // seen by the steady net; false for wave and kernel-size features
};

// The trainer's settings for the family's two nets.
struct FitDefaults {
  std::vector<int> steady_hidden;
  std::vector<int> tail_hidden;
  int epochs = 50;
  double cost = 1;  // relative time per row and epoch, for the progress estimate only
};

struct FamilyTraits {
  std::string name;  // key of its model in kernel_weights.json, e.g. "gemm"
  std::vector<OpTraits> ops;
  // The unit its non-FP32 work runs on (GEMMs: tensor cores); FP32 GEMMs take
  // fp32_matrix_gflops (roofline.hpp).
  ComputeUnit unit = ComputeUnit::vector;
  TilePlan (*plan)(const PlanInputs& in) = nullptr;
  std::vector<Feature> features;
  double (*elements)(const Kernel& k) = nullptr;  // output elements
  double (*flops)(const Kernel& k) = nullptr;
  double (*bytes)(const Kernel& k) = nullptr;  // minimal DRAM traffic
  // Tiles share operands through L2, so a tile's traffic is the kernel's per wave (GEMMs).
  bool tiles_share_operands = false;
  // Kernels that load one scalar element per thread at a time (the LLM-serving kernels of
  // families/token_rows.cpp): their streaming rate per SM is also bounded by the loads the
  // resident threads keep in flight (kScalarLoadBytesPerThreadPerS, learned/features.hpp).
  bool scalar_loads = false;
  // Threads per block of a scalar-load kernel that runs one block per tile: how many of its
  // blocks an SM holds at once (max_threads_per_sm / this), so which of its tiles run side by
  // side (learned/features.cpp). Null: one block per SM per wave.
  std::int64_t (*block_threads)(const Kernel& k) = nullptr;
  // Integer instructions per output element its index arithmetic issues, for ops whose rate is
  // bound by instruction issue rather than memory (the embedding gather): a tile takes at least
  // its elements x this at kInt32LanesPerSm per clock (learned/features.hpp). Null or 0: none.
  double (*issue_ops)(const Kernel& k) = nullptr;
  // Set for row kernels learned against the streaming time (learned/latency.hpp): the DRAM
  // traffic relative to one read and one write per element, >= 1.
  double (*streaming_traffic)(const Kernel& k, const GpuSpec& gpu,
                              const LibraryProfile& library) = nullptr;
  // Whether the streaming time the family is learned against covers that traffic (layer
  // norm: its re-read is cheap where the rows stay cached, e.g. an A100's L1 at H = 2048);
  // otherwise the traffic only bounds the forecast from below (softmax: learned against its
  // traffic it carried over worse to unseen architectures; docs/kernel-model.md).
  bool learned_against_traffic = false;
  // Shape rules beyond the signature; throws Error.
  void (*validate)(const Kernel& k) = nullptr;
  FitDefaults fit;
};

// Registers a family and its ops (they take the op ids after those registered before);
// returns its id. Throws when a name is taken or the traits are incomplete. Register before
// forecasting with it; registered families are never removed.
OpFamily register_family(FamilyTraits traits);
const FamilyTraits& family_traits(OpFamily family);
const FamilyTraits& family_of(Op op);  // throws for an unknown op id
const OpTraits& op_traits(Op op);      // throws for an unknown op id
const FamilyTraits* find_family(std::string_view name);
int family_count();
// The families of kernel/families/registry.cpp (ids 0 .. builtin_family_count() - 1): the
// ones `tilecast train` trains.
int builtin_family_count();
// The ops of a family, by id.
std::vector<Op> family_ops(OpFamily family);

// The built-in families, in id order (kernel/families/registry.cpp).
std::vector<FamilyTraits> builtin_families();
// Families registered right after the built-in ones and trained by `tilecast train-fp16` on
// the FP16 vidur data (kernel/families/registry.cpp), not by `tilecast train`.
std::vector<FamilyTraits> half_precision_families();

// The one place a kernel's tiles are chosen, for forecasting and training alike.
TilePlan plan_kernel(const GpuSpec& gpu, const Kernel& kernel, const TileTable& gemm_tiles,
                     const LibraryProfile& library);

}  // namespace tilecast
