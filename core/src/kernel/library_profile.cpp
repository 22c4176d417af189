#include "kernel/library_profile.hpp"

#include <algorithm>
#include <numeric>

#include "common/embedded_data.hpp"
#include "common/json_fields.hpp"
#include "tilecast/error.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

LibraryProfile parse_library_profile(std::string_view text, std::string_view origin) {
  using detail::integer_field;
  using detail::number_field;
  const nlohmann::json j = detail::parse_json(text, origin);
  LibraryProfile p;
  p.id = detail::string_field(j, "id", origin);
  p.vendor = detail::string_field(j, "vendor", origin);
  if (p.vendor.empty()) throw Error(std::string(origin) + ": field 'vendor' is empty");
  p.warp_threads = int(integer_field(j, "warp_threads", origin, 1, 1024));
  p.elementwise_block_elements = integer_field(j, "elementwise_block_elements", origin, 1, 1 << 20);
  p.elementwise_max_blocks = number_field(j, "elementwise_max_blocks", origin, 1, 1e12);
  p.softmax_warp_max_cols = integer_field(j, "softmax_warp_max_cols", origin, 1, 1 << 20);
  p.softmax_block_ilp = integer_field(j, "softmax_block_ilp", origin, 1, 64);
  p.softmax_max_block_threads = integer_field(j, "softmax_max_block_threads", origin, 1, 4096);
  if (detail::has_field(j, "softmax_fixed_block_threads"))
    p.softmax_fixed_block_threads =
        integer_field(j, "softmax_fixed_block_threads", origin, 1, p.softmax_max_block_threads);
  p.layernorm_elements_per_pass =
      integer_field(j, "layernorm_elements_per_pass", origin, 1, 1 << 20);
  p.layernorm_block_threads = integer_field(j, "layernorm_block_threads", origin, 1, 4096);
  p.layernorm_vector_elements = integer_field(j, "layernorm_vector_elements", origin, 1, 64);
  p.default_threads_per_sm = int(integer_field(j, "default_threads_per_sm", origin, 32, 4096));
  if (detail::has_field(j, "sgemm_fma_instruction_share"))
    p.sgemm_fma_instruction_share = number_field(j, "sgemm_fma_instruction_share", origin, 0.05, 1);
  if (detail::has_field(j, "typical_dram_efficiency"))
    p.typical_dram_efficiency = number_field(j, "typical_dram_efficiency", origin, 0.3, 1);
  if (detail::has_field(j, "gemm_kernel_generation_by_architecture")) {
    const nlohmann::json& g = j.at("gemm_kernel_generation_by_architecture");
    if (!g.is_object())
      throw Error(std::string(origin) +
                  ": field 'gemm_kernel_generation_by_architecture' must be an object of "
                  "architecture -> generation strings");
    for (const auto& [arch, gen] : g.items()) {
      if (!gen.is_string() || gen.get<std::string>().empty())
        throw Error(std::string(origin) + ": gemm_kernel_generation_by_architecture." + arch +
                    " must be a non-empty string (e.g. \"volta\")");
      p.gemm_kernel_generation_by_architecture.emplace_back(arch, gen.get<std::string>());
    }
  }
  if (detail::has_field(j, "gemm_kernel_generation_assumed_for")) {
    const nlohmann::json& a = j.at("gemm_kernel_generation_assumed_for");
    if (!a.is_array())
      throw Error(std::string(origin) +
                  ": field 'gemm_kernel_generation_assumed_for' must be an array of architectures");
    for (const nlohmann::json& arch : a) {
      if (!arch.is_string() || p.gemm_kernel_generation(arch.get<std::string>()).empty())
        throw Error(std::string(origin) + ": gemm_kernel_generation_assumed_for entry " +
                    arch.dump() +
                    " must name an architecture of gemm_kernel_generation_by_architecture");
      p.gemm_kernel_generation_assumed_for.push_back(arch.get<std::string>());
    }
  }
  if (detail::has_field(j, "grouped_mm_bf16_kernel")) {
    const nlohmann::json& a = j.at("grouped_mm_bf16_kernel");
    const std::string o = std::string(origin) + ": field 'grouped_mm_bf16_kernel'";
    if (!a.is_object() || !a.contains("compute_capabilities") ||
        !a["compute_capabilities"].is_array())
      throw Error(o + " must be an object with \"compute_capabilities\": [\"9.0\", ...]");
    for (const nlohmann::json& c : a["compute_capabilities"]) {
      if (!c.is_string()) throw Error(o + ": compute capability " + c.dump() + " must be a string");
      p.grouped_mm_bf16_kernel_capabilities.push_back(
          compute_capability_from(c.get<std::string>(), o + ": compute capability"));
    }
  }
  if (detail::has_field(j, "misaligned_tensor_gemm")) {
    const std::string o = std::string(origin) + ": misaligned_tensor_gemm";
    const nlohmann::json& m = j.at("misaligned_tensor_gemm");
    if (!m.is_object())
      throw Error(o + " must be an object {ops, types, aligned_bytes, min_rows, classes}");
    const std::vector<std::string> ops = detail::string_list_field(m, "ops", o);
    const std::vector<std::string> types = detail::string_list_field(m, "types", o);
    if (ops.empty() || types.empty())
      throw Error(o +
                  ": fields 'ops' (GEMM ops, e.g. [\"linear\"]) and 'types' (data types, e.g. "
                  "[\"fp16\", \"bf16\"]) must list at least one each");
    for (const std::string& op : ops) {
      p.misaligned_gemm_ops.push_back(parse_op(op));
      if (op_family(p.misaligned_gemm_ops.back()) != OpFamily::gemm)
        throw Error(o + ".ops: '" + op + "' is not a GEMM");
    }
    for (const std::string& t : types) p.misaligned_gemm_types.push_back(parse_dtype(t));
    p.misaligned_gemm_aligned_bytes = integer_field(m, "aligned_bytes", o, 2, 256);
    if (detail::has_field(m, "min_rows")) {
      const nlohmann::json& rows = m.at("min_rows");
      if (!rows.is_object())
        throw Error(o + ".min_rows must be an object {op: rows}, e.g. {\"bmm\": 8}");
      for (const auto& row : rows.items()) {
        const std::string& name = row.key();
        const Op op = parse_op(name);
        if (std::find(p.misaligned_gemm_ops.begin(), p.misaligned_gemm_ops.end(), op) ==
            p.misaligned_gemm_ops.end())
          throw Error(o + ".min_rows: '" + name + "' is not one of its ops");
        p.misaligned_gemm_min_rows.emplace_back(
            op, integer_field(rows, name, o + ".min_rows", 1, std::int64_t(1) << 30));
      }
    }
    const nlohmann::json& classes = m.contains("classes") ? m.at("classes") : nlohmann::json();
    if (!classes.is_array() || classes.empty())
      throw Error(o +
                  ".classes must be a non-empty array of {max_align_bytes, compute_multiple, "
                  "memory_multiple}");
    for (const nlohmann::json& c : classes) {
      const std::string co = o + ".classes";
      const std::int64_t below = p.misaligned_gemm_classes.empty()
                                     ? 1
                                     : p.misaligned_gemm_classes.back().max_align_bytes + 1;
      p.misaligned_gemm_classes.push_back(
          {integer_field(c, "max_align_bytes", co, below, p.misaligned_gemm_aligned_bytes - 1),
           number_field(c, "compute_multiple", co, 1, 1000),
           number_field(c, "memory_multiple", co, 1, 1000)});
    }
  }
  return p;
}

std::int64_t gemm_alignment_bytes(const Kernel& k) {
  const double bytes = dtype_bytes(k.dtype);
  if (op_family(k.op) != OpFamily::gemm || bytes < 1) return 0;
  // dims {B, M, N, K}: a linear's input and weight run along K, its output along N; a bmm's
  // operands along K and N likewise
  const std::int64_t g = std::gcd(k.dims[2], k.dims[3]) * std::int64_t(bytes);
  return g & -g;  // its lowest set bit
}

const LibraryProfile::MisalignedGemmClass* LibraryProfile::misaligned_gemm_class(
    const Kernel& k) const {
  if (misaligned_gemm_classes.empty() ||
      std::find(misaligned_gemm_ops.begin(), misaligned_gemm_ops.end(), k.op) ==
          misaligned_gemm_ops.end() ||
      std::find(misaligned_gemm_types.begin(), misaligned_gemm_types.end(), k.dtype) ==
          misaligned_gemm_types.end())
    return nullptr;
  for (const auto& [op, rows] : misaligned_gemm_min_rows)
    if (op == k.op && k.dims[1] < rows) return nullptr;
  const std::int64_t align = gemm_alignment_bytes(k);
  if (align <= 0 || align >= misaligned_gemm_aligned_bytes) return nullptr;
  for (const MisalignedGemmClass& c : misaligned_gemm_classes)
    if (align <= c.max_align_bytes) return &c;
  return nullptr;
}

std::string_view LibraryProfile::gemm_kernel_generation(std::string_view architecture) const {
  for (const auto& [arch, gen] : gemm_kernel_generation_by_architecture)
    if (arch == architecture) return gen;
  return {};
}

bool LibraryProfile::gemm_kernel_generation_assumed(std::string_view architecture) const {
  for (const std::string& arch : gemm_kernel_generation_assumed_for)
    if (arch == architecture) return true;
  return false;
}

const std::vector<LibraryProfile>& library_profiles() {
  static const std::vector<LibraryProfile> profiles = [] {
    std::vector<LibraryProfile> out;
    for (const auto& f : embedded::json_files_in("core/data/libraries"))
      out.push_back(parse_library_profile(f.text, f.path));
    return out;
  }();
  return profiles;
}

const LibraryProfile& library_profile_for(std::string_view vendor) {
  std::string known;
  for (const LibraryProfile& p : library_profiles()) {
    if (p.vendor == vendor) return p;
    known += (known.empty() ? "" : ", ") + p.vendor;
  }
  throw Error("no kernel-library profile for vendor '" + std::string(vendor) +
              "' (core/data/libraries/); known vendors: " + (known.empty() ? "none" : known));
}

const LibraryProfile& library_profile_for(const GpuSpec& gpu) {
  return library_profile_for(gpu.vendor);
}

const LibraryProfile& cuda_library_profile() { return library_profile_for("NVIDIA"); }

bool grouped_mm_bf16_kernel(const GpuSpec& gpu) {
  const std::vector<int>& caps = library_profile_for(gpu).grouped_mm_bf16_kernel_capabilities;
  return gpu.compute_capability > 0 &&
         std::find(caps.begin(), caps.end(), gpu.compute_capability) != caps.end();
}

}  // namespace tilecast
