// Reading Vidur's collective timings and scoring forecasts against them (docs/comm.md).
#include "tilecast/comm_eval.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "common/median.hpp"
#include "tilecast/error.hpp"
#include "tilecast/system.hpp"

namespace tilecast {
namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream is(line);
  while (std::getline(is, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

double to_number(const std::string& s, const std::string& where) {
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size() || !std::isfinite(v)) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw Error(where + ": '" + s + "' is not a number");
  }
}

}  // namespace

std::vector<CommRow> parse_vidur_comm_csv(std::string_view csv_text, std::string_view node,
                                          std::string_view origin) {
  std::istringstream in{std::string(csv_text)};
  std::string line;
  if (!std::getline(in, line)) throw Error(std::string(origin) + ": empty file");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = split_csv_line(line);
  auto column = [&](const std::string& name, bool suffix) -> std::size_t {
    for (std::size_t k = 0; k < header.size(); ++k) {
      const std::string& h = header[k];
      if (suffix ? (h.size() > name.size() &&
                    h.compare(h.size() - name.size(), name.size(), name) == 0 &&
                    h.rfind("time_stats.", 0) == 0)
                 : h == name)
        return k;
    }
    throw Error(std::string(origin) + ": no column '" + (suffix ? "time_stats.<op>" : "") + name +
                "'");
  };
  const std::size_t c_time = column(".median", true), c_workers = column("num_workers", false),
                    c_size = column("size", false), c_dpn = column("devices_per_node", false),
                    c_coll = column("collective", false);
  std::vector<CommRow> rows;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto cells = split_csv_line(line);
    const std::string where = std::string(origin) + " line " + std::to_string(line_no);
    if (cells.size() < header.size())
      throw Error(where + ": " + std::to_string(cells.size()) + " cells, header has " +
                  std::to_string(header.size()));
    CommRow r;
    r.node = std::string(node);
    r.collective = parse_collective(cells[c_coll]);
    r.gpus = static_cast<int>(to_number(cells[c_workers], where + " num_workers"));
    r.gpus_per_node = static_cast<int>(to_number(cells[c_dpn], where + " devices_per_node"));
    r.bytes = to_number(cells[c_size], where + " size");
    r.measured_ms = to_number(cells[c_time], where + " median");
    if (r.gpus < 2 || r.gpus_per_node < 1 || r.bytes <= 0 || r.measured_ms <= 0)
      throw Error(where + ": num_workers >= 2, devices_per_node >= 1, size > 0, time > 0 needed");
    rows.push_back(r);
  }
  return rows;
}

void mark_held_out_sizes(std::vector<CommRow>& rows) {
  using Key = std::tuple<std::string, int, int, int>;
  std::map<Key, std::set<double>> sizes;
  for (const auto& r : rows)
    sizes[{r.node, static_cast<int>(r.collective), r.gpus, r.gpus_per_node}].insert(r.bytes);
  for (auto& r : rows) {
    const auto& s = sizes[{r.node, static_cast<int>(r.collective), r.gpus, r.gpus_per_node}];
    r.held_out = std::distance(s.begin(), s.find(r.bytes)) % 2 == 1;
  }
}

CommReport evaluate_comm(const std::vector<CommRow>& rows, const CommCalibration& calibration) {
  constexpr double kMiB = 1024.0 * 1024.0;
  struct Acc {
    CommGroup g;
    std::vector<double> all, big, big_held, small;
  };
  using Key = std::tuple<std::string, std::string, int, int, int>;
  std::map<Key, Acc> acc;
  for (const auto& r : rows) {
    const int nodes = r.gpus / std::max(1, r.gpus_per_node);
    const Key key{r.node, std::string(collective_name(r.collective)), nodes, r.gpus,
                  r.gpus_per_node};
    Acc& a = acc[key];
    CommGroup& g = a.g;
    if (a.all.empty() && g.n == 0) {
      g.node = r.node;
      g.collective = std::string(collective_name(r.collective));
      g.gpus = r.gpus;
      g.gpus_per_node = r.gpus_per_node;
      g.nodes = nodes;
    }
    ++g.n;
    const SystemSpec* system = lookup_system(r.node);
    if (!system) {
      g.modelled = false;
      g.note = "no system matches node '" + r.node + "'";
      continue;
    }
    g.system = system->id;
    CollectiveForecast f;
    try {
      CollectiveRequest q;
      q.collective = r.collective;
      q.bytes = r.bytes;
      q.gpus = r.gpus;
      q.gpus_per_node = r.gpus_per_node;
      f = forecast_collective(*system, q, calibration);
    } catch (const Error& e) {
      g.modelled = false;
      g.note = e.what();
      continue;
    }
    g.link = std::string(link_class_name(f.link));
    g.calibrated = f.calibrated;
    const double err = std::abs(f.time_ms / r.measured_ms - 1) * 100;
    a.all.push_back(err);
    if (r.bytes <= 64 * 1024) a.small.push_back(err);
    if (r.bytes >= kMiB) {
      a.big.push_back(err);
      if (r.held_out) a.big_held.push_back(err);
    }
  }
  CommReport report;
  for (auto& [key, a] : acc) {
    CommGroup g = a.g;
    if (g.modelled) {
      g.median_abs_error_pct = detail::median(a.all);
      g.n_ge_1mib = static_cast<int>(a.big.size());
      g.median_abs_error_pct_ge_1mib = detail::median(a.big);
      g.n_ge_1mib_held_out = static_cast<int>(a.big_held.size());
      g.median_abs_error_pct_ge_1mib_held_out = detail::median(a.big_held);
      g.n_le_64kib = static_cast<int>(a.small.size());
      g.median_abs_error_pct_le_64kib = detail::median(a.small);
    }
    report.groups.push_back(g);
  }
  return report;
}

std::string comm_report_to_json(const CommReport& report) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : report.groups) {
    nlohmann::json j = {{"system", g.system},
                        {"node", g.node},
                        {"collective", g.collective},
                        {"gpus", g.gpus},
                        {"gpus_per_node", g.gpus_per_node},
                        {"nodes", g.nodes},
                        {"link", g.link},
                        {"modelled", g.modelled},
                        {"calibrated", g.calibrated},
                        {"n", g.n}};
    if (g.modelled) {
      j["median_abs_error_pct"] = g.median_abs_error_pct;
      j["n_ge_1mib"] = g.n_ge_1mib;
      j["median_abs_error_pct_ge_1mib"] = g.median_abs_error_pct_ge_1mib;
      j["n_ge_1mib_held_out"] = g.n_ge_1mib_held_out;
      j["median_abs_error_pct_ge_1mib_held_out"] = g.median_abs_error_pct_ge_1mib_held_out;
      j["n_le_64kib"] = g.n_le_64kib;
      j["median_abs_error_pct_le_64kib"] = g.median_abs_error_pct_le_64kib;
    }
    if (!g.note.empty()) j["note"] = g.note;
    groups.push_back(j);
  }
  return nlohmann::json{{"groups", groups}}.dump(2);
}

}  // namespace tilecast
