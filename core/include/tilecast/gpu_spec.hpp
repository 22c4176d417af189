// A GPU as datasheet numbers. Parsed from either the NeuSight dataset's device
// JSON or the project's gpu_catalog format (a superset); both validate every field.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/precision.hpp"

namespace tilecast {

struct GpuSpec {
  std::string id;  // catalog id (e.g. "h100-sxm"); empty for ad-hoc specs
  std::string name;
  std::vector<std::string> aliases;  // other names, e.g. the CUDA device name
  std::string vendor;                // "NVIDIA", "AMD": a vendor with a kernel-library profile
  std::string architecture;          // e.g. "Ampere"; may be empty
  // NVIDIA's compute capability as major x 10 + minor (90 for 9.0, 120 for 12.0); 0 where not
  // stated (AMD, custom GPUs). Which library kernels exist can hang on it where the
  // architecture name does not tell (B200: 10.0, RTX 5090: 12.0, both Blackwell).
  int compute_capability = 0;
  int num_sm = 0;  // SMs (NVIDIA) or compute units (AMD)
  int cores_per_sm = 0;
  double clock_mhz = 0;
  double fp32_gflops = 0;         // FP32 peak on the vector/CUDA cores
  double fp32_matrix_gflops = 0;  // FP32 peak for GEMMs (AMD matrix cores); = fp32_gflops otherwise
  // Dense (not sparse) datasheet peaks of the other data types, TFLOP/s (int8: TOPS), by data
  // type and unit; 0 where the datasheet gives none. FP32 is not repeated here.
  std::array<std::array<double, kComputeUnitCount>, kDataTypeCount> peak_tflops{};
  std::string peak_source;  // where those peaks come from
  // The clock the matrix cores sustain through a dense GEMM of a data type, MHz, where the
  // vendor has measured it (AMD's Max-Achievable FLOPs: an MI300X's BF16 GEMM runs at 1207 of
  // its 2100 MHz); 0 = not stated, the boost clock. kernel/matrix_clock.cpp.
  std::array<double, kDataTypeCount> matrix_clock_mhz{};
  std::string matrix_clock_source;
  // The share of its FP16-accumulate tensor rate a data type keeps when the tensor cores
  // accumulate in FP32, as cuBLAS and PyTorch GEMMs do, where the whitepaper halves it (GeForce:
  // an RTX 4090's FP16 165.2 TFLOP/s with FP32 accumulation, 330.3 with FP16); 0 = not stated,
  // the same rate. The peaks above are already the FP32-accumulate ones.
  // kernel/fp32_accumulate.cpp.
  std::array<double, kDataTypeCount> fp32_accumulate_share{};
  std::string fp32_accumulate_source;
  double mem_gb = 0;  // the datasheet's figure ("80 GB")
  // "HBM3", "GDDR6", ... (memory_type_names()); empty where not stated. How the driver's total
  // follows from mem_gb where no printed total is given (device_memory_bytes).
  std::string memory_type;
  // The device's total memory as its driver prints it (nvidia-smi, rocm-smi), MiB; 0 = not stated.
  double mem_reported_mib = 0;
  std::string mem_reported_source;
  double mem_bw_gbps = 0;
  // Share of mem_bw_gbps the vendor states its memory controller delivers (e.g. the V100
  // whitepaper's "greater than 95 %"); 0 = not stated. kernel/dram_efficiency.cpp.
  double dram_efficiency = 0;
  std::string dram_efficiency_source;
  double l2_mb = 0;
  // Residency and cache facts that only the softmax re-read model uses; 0 = unknown. The
  // dataset's device files lack them, so parse_gpu_spec takes them from the catalog entry
  // of the same device.
  int max_threads_per_sm = 0;  // resident threads per SM (CUDA compute capability table)
  double l1_kb_per_sm = 0;     // largest L1 data cache per SM that global loads use; 0 on
                               // Pascal, whose global loads bypass L1 by default
  // Issue slots a warp scheduler has per warp FP32 FMA: 2 where one FMA occupies the FP32 pipe
  // for two issue cycles (16 lanes per scheduler: Volta, Turing, GA100) or the scheduler dual-
  // dispatches (Pascal), 1 where 32 lanes per scheduler take a warp FMA every cycle (GA10x,
  // Ada, Hopper, Blackwell): there, every other instruction of an SGEMM loop costs FMA
  // throughput (kernel/issue_ceiling.cpp). 0 = not stated (no ceiling).
  double fp32_issue_slots_per_warp_fma = 0;
  std::string issue_source;  // where the SM's scheduler and lane counts come from
  std::string source;        // datasheet citation

  double peak_tflops_of(DataType t, ComputeUnit u) const {
    return peak_tflops[std::size_t(t)][std::size_t(u)];
  }
};

// Parses and validates a spec. `origin` (a file name or "custom GPU") prefixes
// every error message. Throws tilecast::Error. A dataset device file gets its vendor, architecture,
// max_threads_per_sm, l1_kb_per_sm, dram_efficiency and peak_tflops from the catalog entry of the
// same name; without one, its vendor from an optional `Vendor` field.
GpuSpec parse_gpu_spec(std::string_view json_text, std::string_view origin);

// NVIDIA's compute capability "9.0" as 90 ("12.0": 120); throws Error starting with `what` (e.g.
// "h100.json: field 'compute_capability'") and saying what is allowed.
int compute_capability_from(std::string_view text, std::string_view what);
// 90 -> "9.0", 120 -> "12.0": the catalog's words for GpuSpec::compute_capability.
std::string compute_capability_name(int cc);

// Whether the GPU computes `t`: FP32 always, another type where the spec states a tensor or
// vector peak for it (hw/gpu_precision.cpp).
bool gpu_has_precision(const GpuSpec& gpu, DataType t);
// Throws Error naming the GPU's precisions when it lacks `t` (e.g. BF16 on a V100).
void require_precision(const GpuSpec& gpu, DataType t);

// The memory types a spec may name ("HBM2", ..., "GDDR7").
std::span<const std::string_view> memory_type_names();

// The device's memory in bytes as its driver reports it, which serving engines size their KV
// cache from and memory checks compare with (hw/device_memory.cpp): mem_reported_mib where given;
// else mem_gb read as binary GB for HBM (an "80GB" A100 prints 81920 MiB), 15/16 of that for
// GDDR (ECC on, as data-centre cards ship: a "48GB" L40S prints 46068 MiB), 10^9 bytes a GB
// where the type is not stated.
double device_memory_bytes(const GpuSpec& gpu);

// The spec in the gpu_catalog format.
std::string gpu_spec_to_json(const GpuSpec& gpu);

}  // namespace tilecast
