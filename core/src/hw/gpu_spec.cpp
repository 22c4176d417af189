#include "tilecast/gpu_spec.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/json_fields.hpp"
#include "hw/gpu_spec_json.hpp"
#include "kernel/library_profile.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

namespace tilecast {
namespace {

using detail::choice_field;
using detail::has_field;
using detail::integer_field;
using detail::number_field;
using detail::string_field;
using detail::string_list_field;

// Generous bounds: anything outside is a typo or a unit mix-up, not a GPU.
constexpr double kMaxGflops = 1e7;  // 10 PFLOP/s
constexpr double kMaxMemGb = 16384;
constexpr double kMaxBwGbps = 1e5;
constexpr double kMaxL2Mb = 4096;
constexpr double kMaxL1Kb = 4096;
constexpr double kMaxPeakTflops = 1e5;  // 100 PFLOP/s dense

// The vendor must have a kernel-library profile (core/data/libraries/): its launch rules.
void check_vendor(const std::string& vendor, std::string_view origin, std::string_view field) {
  std::string known;
  for (const LibraryProfile& p : library_profiles()) {
    if (p.vendor == vendor) return;
    known += std::string(known.empty() ? "" : ", ") + "\"" + p.vendor + "\"";
  }
  throw Error(std::string(origin) + ": field '" + std::string(field) + "' is \"" + vendor +
              "\"; allowed: " + known + " (vendors with a kernel-library profile)");
}

int parse_compute_capability(const nlohmann::json& j, std::string_view origin) {
  return compute_capability_from(string_field(j, "compute_capability", origin),
                                 std::string(origin) + ": field 'compute_capability'");
}

// "peak_tflops": {"fp16": {"tensor": 312, "vector": 78}, ...}: dense TFLOP/s (int8: TOPS).
void parse_peaks(const nlohmann::json& j, std::string_view origin, GpuSpec& g) {
  const std::string where = std::string(origin) + ": field 'peak_tflops'";
  const nlohmann::json& peaks = j.at("peak_tflops");
  if (!peaks.is_object())
    throw Error(where + " must be an object of data types, e.g. {\"fp16\": {\"tensor\": 312}}");
  for (const auto& [type, units] : peaks.items()) {
    if (type == "fp32")
      throw Error(where +
                  ": fp32 is not repeated here; it is fp32_gflops (vector) and "
                  "fp32_matrix_gflops (matrix cores)");
    DataType t{};
    try {
      t = parse_dtype(type);
    } catch (const Error&) {
      std::string allowed;  // every precision but fp32 (fp32_gflops above)
      for (const auto& n : dtype_names())
        if (n.value != DataType::fp32)
          allowed += (allowed.empty() ? "" : ", ") + std::string(n.name);
      throw Error(where + ": unknown data type '" + type + "'; allowed: " + allowed);
    }
    if (!units.is_object())
      throw Error(where + "." + type + " must be an object of units, e.g. {\"tensor\": 312}");
    for (const auto& [unit, value] : units.items()) {
      const std::optional<ComputeUnit> u = find_enum(unit_names(), unit);
      if (!u)
        throw Error(where + "." + type + ": unknown unit '" + unit +
                    "'; allowed: " + allowed_enum_names(unit_names()));
      const double v = value.is_number() ? value.get<double>() : -1;
      if (!(v > 0) || !std::isfinite(v) || v > kMaxPeakTflops)
        throw Error(
            where + "." + type + "." + unit + " is " + value.dump() +
            "; allowed: a number above 0 and at most 100000 (dense TFLOP/s, TOPS for int8)");
      g.peak_tflops[std::size_t(t)][std::size_t(*u)] = v;
    }
  }
}

// A field of numbers by data type, each a type with a tensor peak in peak_tflops, into `out`:
// `valid` says whether a value may be stored, `allowed` what may be, for the error. (The callers
// read the field that cites them.)
template <class Valid>
void parse_tensor_values(const nlohmann::json& j, std::string_view origin, const GpuSpec& g,
                         const char* field, const char* example, Valid valid,
                         const std::string& allowed, std::array<double, kDataTypeCount>& out) {
  const std::string where = std::string(origin) + ": field '" + field + "'";
  const nlohmann::json& values = j.at(field);
  if (!values.is_object()) throw Error(where + " must be an object of data types, e.g. " + example);
  for (const auto& [type, value] : values.items()) {
    const std::optional<DataType> t = find_enum(dtype_names(), type);
    if (!t || g.peak_tflops_of(*t, ComputeUnit::tensor) <= 0)
      throw Error(where + ": '" + type + "' is not a data type with a tensor peak in peak_tflops");
    const double v = value.is_number() ? value.template get<double>() : -1;
    if (!valid(v))
      throw Error(where + "." + type + " is " + value.dump() + "; allowed: " + allowed);
    out[std::size_t(*t)] = v;
  }
}

// "matrix_clock_mhz": {"bf16": 1207, ...}: clocks up to the boost clock, and their
// "matrix_clock_source".
void parse_matrix_clocks(const nlohmann::json& j, std::string_view origin, GpuSpec& g) {
  parse_tensor_values(
      j, origin, g, "matrix_clock_mhz", "{\"bf16\": 1207}",
      [&](double mhz) { return mhz >= 50 && mhz <= g.clock_mhz; },
      "a clock in MHz from 50 to the boost clock (boost_clock_mhz " +
          std::to_string(int(g.clock_mhz)) + ")",
      g.matrix_clock_mhz);
  g.matrix_clock_source = string_field(j, "matrix_clock_source", origin);
}

// "fp32_accumulate_share": {"fp16": 0.5, ...}: shares above 0 and at most 1, and their
// "fp32_accumulate_source".
void parse_accumulate_shares(const nlohmann::json& j, std::string_view origin, GpuSpec& g) {
  parse_tensor_values(
      j, origin, g, "fp32_accumulate_share", "{\"fp16\": 0.5}",
      [](double share) { return share > 0 && share <= 1; },
      "a share above 0 and at most 1 (0.5 where FP32 accumulation runs at half the "
      "FP16-accumulate rate)",
      g.fp32_accumulate_share);
  g.fp32_accumulate_source = string_field(j, "fp32_accumulate_source", origin);
}

// memory_type (one of memory_type_names()) and the driver's printed total with its source.
void parse_memory(const nlohmann::json& j, std::string_view origin, GpuSpec& g) {
  if (has_field(j, "memory_type"))
    g.memory_type = choice_field(j, "memory_type", origin, memory_type_names());
  if (has_field(j, "mem_reported_mib")) {
    g.mem_reported_mib = number_field(j, "mem_reported_mib", origin, 64, kMaxMemGb * 1024);
    g.mem_reported_source = string_field(j, "mem_reported_source", origin);
  }
}

// A NeuSight device file: its own figures, and for a device the catalog knows every other facet
// of the catalog's entry (vendor, architecture, peaks and their clocks, memory type, issue rate,
// ...), so a field added to the catalog reaches these specs too; not the entry's id, which names
// the catalog's spec, not this one.
GpuSpec from_dataset(const nlohmann::json& j, std::string_view origin) {
  const std::string name = string_field(j, "Device", origin);
  const GpuSpec* known = lookup_gpu(name);
  GpuSpec g = known ? *known : GpuSpec{};
  g.id.clear();
  g.name = name;
  g.aliases = {g.name};
  g.mem_gb = number_field(j, "Dev_Mem", origin, 0.1, kMaxMemGb);
  g.mem_bw_gbps = number_field(j, "Mem_Bw", origin, 1, kMaxBwGbps);
  g.num_sm = static_cast<int>(integer_field(j, "Num_Sm", origin, 1, 4096));
  g.cores_per_sm = static_cast<int>(integer_field(j, "Core_Per_SM", origin, 1, 4096));
  g.clock_mhz = number_field(j, "Freq", origin, 50, 10000);
  if (has_field(j, "SingleFLOPs")) {
    g.fp32_gflops = number_field(j, "SingleFLOPs", origin, 1, kMaxGflops);
    g.fp32_matrix_gflops = g.fp32_gflops;
  } else {
    g.fp32_gflops = number_field(j, "SingleFLOPsVEC", origin, 1, kMaxGflops);
    g.fp32_matrix_gflops = number_field(j, "SingleFLOPsMM", origin, 1, kMaxGflops);
  }
  g.l2_mb = number_field(j, "L2Cache", origin, 0.01, kMaxL2Mb);
  g.source = "NeuSight dataset device file";
  if (known) return g;
  if (!has_field(j, "Vendor"))
    throw Error(std::string(origin) + ": device '" + g.name +
                "' is not in the GPU catalog, so field 'Vendor' is needed (e.g. \"NVIDIA\")");
  g.vendor = string_field(j, "Vendor", origin);
  check_vendor(g.vendor, origin, "Vendor");
  return g;
}

GpuSpec from_catalog(const nlohmann::json& j, std::string_view origin) {
  GpuSpec g;
  g.id = string_field(j, "id", origin, false);
  g.name = string_field(j, "name", origin);
  if (g.name.empty()) throw Error(std::string(origin) + ": field 'name' is empty");
  g.aliases = string_list_field(j, "aliases", origin);
  g.vendor = string_field(j, "vendor", origin);
  check_vendor(g.vendor, origin, "vendor");
  g.architecture = string_field(j, "architecture", origin, false);
  if (has_field(j, "compute_capability"))
    g.compute_capability = parse_compute_capability(j, origin);
  g.num_sm = static_cast<int>(integer_field(j, "num_sm", origin, 1, 4096));
  g.cores_per_sm = static_cast<int>(integer_field(j, "cores_per_sm", origin, 1, 4096));
  g.clock_mhz = number_field(j, "boost_clock_mhz", origin, 50, 10000);
  g.fp32_gflops = number_field(j, "fp32_gflops", origin, 1, kMaxGflops);
  g.fp32_matrix_gflops = has_field(j, "fp32_matrix_gflops")
                             ? number_field(j, "fp32_matrix_gflops", origin, 1, kMaxGflops)
                             : g.fp32_gflops;
  g.mem_gb = number_field(j, "mem_gb", origin, 0.1, kMaxMemGb);
  parse_memory(j, origin, g);
  g.mem_bw_gbps = number_field(j, "mem_bw_gbps", origin, 1, kMaxBwGbps);
  g.l2_mb = number_field(j, "l2_mb", origin, 0.01, kMaxL2Mb);
  if (has_field(j, "dram_efficiency")) {
    g.dram_efficiency = number_field(j, "dram_efficiency", origin, 0.3, 1);
    g.dram_efficiency_source = string_field(j, "dram_efficiency_source", origin);
  }
  if (has_field(j, "max_threads_per_sm"))
    g.max_threads_per_sm =
        static_cast<int>(integer_field(j, "max_threads_per_sm", origin, 32, 4096));
  if (has_field(j, "l1_kb_per_sm"))
    g.l1_kb_per_sm = number_field(j, "l1_kb_per_sm", origin, 1, kMaxL1Kb);
  if (has_field(j, "fp32_issue_slots_per_warp_fma")) {
    g.fp32_issue_slots_per_warp_fma =
        number_field(j, "fp32_issue_slots_per_warp_fma", origin, 0.25, 8);
    g.issue_source = string_field(j, "issue_source", origin);
  }
  if (has_field(j, "peak_tflops")) parse_peaks(j, origin, g);
  if (has_field(j, "matrix_clock_mhz")) parse_matrix_clocks(j, origin, g);
  if (has_field(j, "fp32_accumulate_share")) parse_accumulate_shares(j, origin, g);
  g.peak_source = string_field(j, "peak_source", origin, false);
  g.source = string_field(j, "source", origin, false);
  return g;
}

}  // namespace

int compute_capability_from(std::string_view v, std::string_view what) {
  const auto digit = [&](std::size_t i) { return i < v.size() && v[i] >= '0' && v[i] <= '9'; };
  // "M.m" or "1M.m": a major of 1 to 19, one minor digit
  const bool one = v.size() == 3 && digit(0) && v[0] != '0' && v[1] == '.' && digit(2);
  const bool two = v.size() == 4 && v[0] == '1' && digit(1) && v[2] == '.' && digit(3);
  if (!one && !two)
    throw Error(std::string(what) + " is \"" + std::string(v) +
                "\"; allowed: NVIDIA's major.minor, e.g. \"8.0\", \"9.0\", \"12.0\"");
  return one ? (v[0] - '0') * 10 + (v[2] - '0') : (10 + v[1] - '0') * 10 + (v[3] - '0');
}

std::string compute_capability_name(int cc) {
  return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

GpuSpec parse_gpu_spec(std::string_view json_text, std::string_view origin) {
  nlohmann::json j = detail::parse_json(json_text, origin);
  return j.contains("Device") ? from_dataset(j, origin) : from_catalog(j, origin);
}

std::string gpu_spec_json_text(const GpuSpec& g, int indent) {
  nlohmann::ordered_json j;
  if (!g.id.empty()) j["id"] = g.id;
  j["name"] = g.name;
  j["aliases"] = g.aliases;
  j["vendor"] = g.vendor;
  j["architecture"] = g.architecture;
  if (g.compute_capability > 0)
    j["compute_capability"] = compute_capability_name(g.compute_capability);
  j["num_sm"] = g.num_sm;
  j["cores_per_sm"] = g.cores_per_sm;
  j["boost_clock_mhz"] = g.clock_mhz;
  j["fp32_gflops"] = g.fp32_gflops;
  if (g.fp32_matrix_gflops != g.fp32_gflops) j["fp32_matrix_gflops"] = g.fp32_matrix_gflops;
  j["mem_gb"] = g.mem_gb;
  if (!g.memory_type.empty()) j["memory_type"] = g.memory_type;
  if (g.mem_reported_mib > 0) {
    j["mem_reported_mib"] = g.mem_reported_mib;
    j["mem_reported_source"] = g.mem_reported_source;
  }
  j["mem_bw_gbps"] = g.mem_bw_gbps;
  j["l2_mb"] = g.l2_mb;
  if (g.dram_efficiency > 0) {
    j["dram_efficiency"] = g.dram_efficiency;
    j["dram_efficiency_source"] = g.dram_efficiency_source;
  }
  if (g.max_threads_per_sm > 0) j["max_threads_per_sm"] = g.max_threads_per_sm;
  if (g.l1_kb_per_sm > 0) j["l1_kb_per_sm"] = g.l1_kb_per_sm;
  if (g.fp32_issue_slots_per_warp_fma > 0) {
    j["fp32_issue_slots_per_warp_fma"] = g.fp32_issue_slots_per_warp_fma;
    j["issue_source"] = g.issue_source;
  }
  nlohmann::ordered_json peaks = nlohmann::ordered_json::object();
  for (int t = 0; t < kDataTypeCount; ++t)
    for (ComputeUnit u : {ComputeUnit::tensor, ComputeUnit::vector})
      if (const double v = g.peak_tflops_of(DataType(t), u); v > 0)
        peaks[std::string(dtype_name(DataType(t)))][std::string(unit_name(u))] = v;
  if (!peaks.empty()) j["peak_tflops"] = peaks;
  if (!g.peak_source.empty()) j["peak_source"] = g.peak_source;
  // a per-data-type field (its stated types only) and its source, where any type is stated
  const auto by_type = [&](const char* field, const std::array<double, kDataTypeCount>& values,
                           const char* source_field, const std::string& source) {
    nlohmann::ordered_json stated = nlohmann::ordered_json::object();
    for (int t = 0; t < kDataTypeCount; ++t)
      if (const double v = values[std::size_t(t)]; v > 0)
        stated[std::string(dtype_name(DataType(t)))] = v;
    if (stated.empty()) return;
    j[field] = stated;
    j[source_field] = source;
  };
  by_type("matrix_clock_mhz", g.matrix_clock_mhz, "matrix_clock_source", g.matrix_clock_source);
  by_type("fp32_accumulate_share", g.fp32_accumulate_share, "fp32_accumulate_source",
          g.fp32_accumulate_source);
  j["source"] = g.source;
  return j.dump(indent);
}

std::string gpu_spec_to_json(const GpuSpec& g) { return gpu_spec_json_text(g, 2); }

}  // namespace tilecast
