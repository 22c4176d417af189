// The NeuSight kernel CSV: quoted fields, header-named columns.
#include "tilecast/kernel_csv.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "tilecast/error.hpp"
#include "tilecast/kernel_eval.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {
namespace {

constexpr EnumName<Launch> kTimingNames[] = {{"call", Launch::eager}, {"kernel", Launch::engine}};

// Splits one CSV record; returns false on an unterminated quote.
bool split_record(std::string_view line, std::vector<std::string>& out) {
  out.clear();
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(std::move(cur));
  return !quoted;
}

std::string where(std::string_view origin, std::size_t line) {
  return std::string(origin) + ":" + std::to_string(line);
}

std::int64_t parse_int(const std::string& s, const std::string& at, const char* field) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    throw Error(at + ": field '" + field + "' is '" + s + "'; expected an integer");
  return v;
}

double parse_latency(const std::string& s, const std::string& at) {
  char* end = nullptr;
  const double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v <= 0 || v > 1e9)
    throw Error(at + ": field 'Latency' is '" + s + "'; expected a positive number of ms");
  return v;
}

}  // namespace

EnumNames<Launch> kernel_timing_names() { return kTimingNames; }

DataType kernel_csv_dtype_from_path(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string_view::npos) return DataType::fp32;
  std::string_view dir = path.substr(0, slash);
  dir = dir.substr(dir.find_last_of('/') == std::string_view::npos ? 0 : dir.find_last_of('/') + 1);
  constexpr std::string_view prefix = "kernels-";
  if (!dir.starts_with(prefix)) return DataType::fp32;
  try {
    return parse_dtype(dir.substr(prefix.size()));
  } catch (const Error& e) {
    throw Error(std::string(path) + ": the folder '" + std::string(dir) +
                "' names no data type: " + e.what());
  }
}

std::vector<MeasuredKernel> parse_kernel_csv(std::string_view text, std::string_view origin,
                                             DataType default_dtype) {
  std::vector<MeasuredKernel> rows;
  std::vector<std::string> header, f;
  std::size_t pos = 0, line_no = 0;
  int c_op = -1, c_lat = -1, c_dev = -1, c_name = -1, c_gx = -1, c_gy = -1, c_gz = -1;
  int c_prec = -1, c_timing = -1;
  int c_dim[5] = {-1, -1, -1, -1, -1};  // B, M, N, K, H
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::string at = where(origin, line_no);
    if (header.empty()) {
      if (!split_record(line, header)) throw Error(at + ": unterminated quote in the header");
      const char* dims[5] = {"B", "M", "N", "K", "H"};
      for (int i = 0; i < int(header.size()); ++i) {
        const std::string& h = header[i];
        if (h == "OPName") c_op = i;
        if (h == "Latency") c_lat = i;
        if (h == "Device") c_dev = i;
        if (h == "Kernel Name") c_name = i;
        if (h == "Precision") c_prec = i;
        if (h == "Timing") c_timing = i;
        if (h == "Grid x") c_gx = i;
        if (h == "Grid y") c_gy = i;
        if (h == "Grid z") c_gz = i;
        for (int d = 0; d < 5; ++d)
          if (h == dims[d]) c_dim[d] = i;
      }
      if (c_op < 0 || c_lat < 0 || c_dev < 0 || c_dim[0] < 0)
        throw Error(at +
                    ": the header must name the columns OPName, Latency, Device and B "
                    "(and M,N,K or H)");
      continue;
    }
    if (!split_record(line, f)) throw Error(at + ": unterminated quote");
    if (f.size() != header.size())
      throw Error(at + ": " + std::to_string(f.size()) + " fields; the header has " +
                  std::to_string(header.size()));
    if (f[c_op] == "conv") continue;
    MeasuredKernel r;
    r.origin = at;
    Op op;
    try {
      op = parse_op(f[c_op]);
    } catch (const Error& e) {
      throw Error(at + ": field 'OPName': " + e.what());
    }
    const int want[4] = {0, is_gemm(op) ? 1 : 4, is_gemm(op) ? 2 : -1, is_gemm(op) ? 3 : -1};
    std::int64_t dims[4];
    std::size_t count = 0;
    const char* names[5] = {"B", "M", "N", "K", "H"};
    for (int d : want) {
      if (d < 0) continue;
      if (c_dim[d] < 0)
        throw Error(at + ": op '" + f[c_op] + "' needs a column '" + names[d] + "'");
      dims[count++] = parse_int(f[c_dim[d]], at, names[d]);
    }
    DataType dtype = default_dtype;
    if (c_prec >= 0) try {
        dtype = parse_dtype(f[c_prec]);
      } catch (const Error& e) {
        throw Error(at + ": field 'Precision': " + e.what());
      }
    try {
      r.kernel = make_kernel(op, dims, count, dtype);
    } catch (const Error& e) {
      throw Error(at + ": " + e.what());
    }
    r.latency_ms = parse_latency(f[c_lat], at);
    if (c_timing >= 0 && !f[c_timing].empty()) try {
        r.launch = parse_enum(kernel_timing_names(), f[c_timing], "a timing");
      } catch (const Error& e) {
        throw Error(at + ": field 'Timing': " + e.what());
      }
    r.device = f[c_dev];
    if (r.device.empty()) throw Error(at + ": field 'Device' is empty");
    if (c_name >= 0) r.kernel_name = f[c_name];
    const int gc[3] = {c_gx, c_gy, c_gz};
    for (int g = 0; g < 3; ++g)
      if (gc[g] >= 0 && !f[gc[g]].empty()) {
        r.grid[g] = parse_int(f[gc[g]], at, g == 0 ? "Grid x" : g == 1 ? "Grid y" : "Grid z");
        if (r.grid[g] < 1 || r.grid[g] > (std::int64_t{1} << 32))
          throw Error(at + ": field 'Grid' is " + std::to_string(r.grid[g]) +
                      "; allowed 1 to 2^32");
      }
    rows.push_back(std::move(r));
  }
  if (header.empty()) throw Error(std::string(origin) + ": empty CSV (no header row)");
  return rows;
}

}  // namespace tilecast
