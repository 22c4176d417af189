// `tilecast comm`: one collective on one system; `tilecast systems`: the system catalog.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "answer_text.hpp"
#include "command.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/system.hpp"

namespace tilecast::cli {
namespace {

// A catalog name, a built node's id (rtx-4090-node-4) or a path to a system file.
SystemSpec resolve_system(const std::string& name_or_path) {
  reject_directory("--system", name_or_path);
  if (is_regular_file(name_or_path))
    return parse_system_spec(read_text_file(name_or_path), name_or_path);
  return system_named(name_or_path);
}

// The units --bytes takes, any case (KiB/MiB/GiB powers of 2, KB/MB/GB of 10; none or B:
// bytes), written once for the parser, its error and the help.
struct ByteUnit {
  std::string_view name;
  double bytes;
};
constexpr ByteUnit kByteUnits[] = {
    {"B", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
    {"KB", 1e3}, {"MB", 1e6},     {"GB", 1e9}};

std::string byte_unit_names(std::string_view sep) {
  std::string s;
  for (const ByteUnit& u : kByteUnits)
    s += (s.empty() ? "" : std::string(sep)) + std::string(u.name);
  return s;
}

bool same_word_any_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// "1048576", "64MiB", "1.5GB": bytes.
double parse_bytes(const std::string& text) {
  const Error not_a_size("--bytes: '" + text +
                         "' is not a size: a number above 0, with no unit or one of " +
                         byte_unit_names(", ") + " (e.g. 1048576, 64MiB, 1GB)");
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw not_a_size;
  }
  const std::string_view unit = std::string_view(text).substr(used);
  double scale = unit.empty() ? 1 : -1;
  for (const ByteUnit& u : kByteUnits)
    if (same_word_any_case(unit, u.name)) scale = u.bytes;
  if (scale < 0 || !(v > 0) || !std::isfinite(v)) throw not_a_size;
  return v * scale;
}

// The collective's text view, printed from the API's answer (which does not repeat the
// system's name).
void print_collective(const nlohmann::ordered_json& f, const std::string& system_name) {
  std::printf("%s on %s: %d GPUs (%d node%s x %d), %.0f bytes\n",
              f["collective"].get<std::string>().c_str(), system_name.c_str(), f["gpus"].get<int>(),
              f["nodes"].get<int>(), f["nodes"].get<int>() > 1 ? "s" : "",
              f["gpus_per_node"].get<int>(), f["bytes"].get<double>());
  std::printf("  time       %10.4f ms  (latency %.4f + transfer %.4f)\n",
              f["time_ms"].get<double>(), f["latency_ms"].get<double>(),
              f["transfer_ms"].get<double>());
  std::printf("  algorithm  %s (%s protocol), %.0f steps, bytes factor %.3f\n",
              f["algorithm"].get<std::string>().c_str(), f["protocol"].get<std::string>().c_str(),
              f["steps"].get<double>(), f["bytes_factor"].get<double>());
  std::printf(
      "  path       %s, %.1f GB/s per direction, efficiency %.2f, bus bandwidth %.1f GB/s\n",
      f["link"].get<std::string>().c_str(), f["path_bw_gbps"].get<double>(),
      f["efficiency"].get<double>(), f["bus_bw_gbps"].get<double>());
  std::printf("  curve      %s%s\n", f["calibration"].get<std::string>().c_str(),
              f["calibrated"].get<bool>() ? "" : " (borrowed: this link class was not measured)");
}

int run_comm(const Args& args) {
  const SystemSpec system = resolve_system(args.require("system"));
  nlohmann::json req = {{"system", nlohmann::json::parse(system_spec_to_json(system))},
                        {"collective", args.get("collective", "all_reduce")},
                        {"bytes", parse_bytes(args.require("bytes"))},
                        {"gpus", args.integer("gpus", system.gpus_per_node, 2, 1 << 20)},
                        {"algorithm", args.get("algorithm", "auto")}};
  if (args.has("gpus-per-node")) req["gpus_per_node"] = args.integer("gpus-per-node", 0, 1, 1024);
  return print_answer(args.has("json"), api::forecast_collective(req.dump()),
                      [&](const nlohmann::ordered_json& f) { print_collective(f, system.name); });
}

int run_systems(const Args& args) {
  if (args.has("show")) {
    const SystemSpec s = resolve_system(args.get("show"));
    std::printf("%s\n", nlohmann::json::parse(system_spec_to_json(s)).dump(2).c_str());
    return 0;
  }
  if (args.has("json")) {
    std::printf("%s\n", nlohmann::json::parse(api::list_systems()).dump(2).c_str());
    return 0;
  }
  std::printf("%-26s %-16s %5s %-21s %9s %9s  %s\n", "id", "gpu", "gpus", "topology", "link GB/s",
              "PCIe GB/s", "network");
  for (const auto& s : system_catalog()) {
    std::string net = "-";
    if (s.network)
      net = std::to_string(s.network->nics_per_node) + "x " +
            std::to_string(static_cast<int>(s.network->nic_gbit_per_s)) + " Gb/s " +
            s.network->kind + ", up to " + std::to_string(s.max_nodes) + " nodes";
    std::printf("%-26s %-16s %5d %-21s %9.1f %9.1f  %s\n", s.id.c_str(), s.gpu.c_str(),
                s.gpus_per_node, std::string(topology_name(s.topology)).c_str(),
                s.link_bw_gbps_per_direction, s.pcie_bw_gbps_per_direction, net.c_str());
  }
  return 0;
}

[[maybe_unused]] const bool registered_comm =
    register_command({"comm",
                      "--system NAME_OR_FILE --bytes N[" + byte_unit_names("|") +
                          "] [--collective " + enum_names_joined(collective_names(), "|") +
                          "] [--gpus N] [--gpus-per-node N] [--algorithm " +
                          enum_names_joined(comm_algorithm_names(), "|") + "] [--json]",
                      "forecast one collective on a multi-GPU system",
                      {"system", "bytes", "collective", "gpus", "gpus-per-node", "algorithm"},
                      {"json"},
                      run_comm});

[[maybe_unused]] const bool registered_systems =
    register_command({"systems",
                      "[--json] [--show NAME_OR_FILE]",
                      "list the multi-GPU systems, or show one (bandwidths filled in)",
                      {"show"},
                      {"json"},
                      run_systems});

}  // namespace
}  // namespace tilecast::cli
