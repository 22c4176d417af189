#include "tilecast/gpu_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "common/embedded_data.hpp"
#include "common/name_key.hpp"
#include "common/sort_by_key.hpp"
#include "tilecast/closest_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

std::vector<GpuSpec> load_catalog() {
  std::vector<GpuSpec> gpus;
  for (const auto& f : embedded::json_files_in("gpu_catalog")) {
    GpuSpec g = parse_gpu_spec(f.text, f.path);
    if (g.id.empty()) g.id = std::string(f.stem);
    gpus.push_back(std::move(g));
  }
  detail::sort_by_key(gpus, [](const GpuSpec& g) -> const std::string& { return g.id; });
  return gpus;
}

}  // namespace

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = load_catalog();
  return catalog;
}

namespace {

// The catalog GPU a name gives by its id, name (with or without the vendor) or an alias.
const GpuSpec* exact_gpu(std::string_view name) {
  const std::string key = detail::name_key(name);
  for (const auto& g : gpu_catalog()) {
    const std::string name_key = detail::name_key(g.name);
    const std::string vendor_key = detail::name_key(g.vendor);
    const bool name_without_vendor =
        name_key.rfind(vendor_key, 0) == 0 && name_key.substr(vendor_key.size()) == key;
    if (detail::name_key(g.id) == key || name_key == key || name_without_vendor) return &g;
    for (const auto& a : g.aliases)
      if (detail::name_key(a) == key) return &g;
  }
  return nullptr;
}

// A name's words, in lower case, split at anything not a letter or a digit.
std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += char(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// A word that gives the memory's size ("80gb", "141gb", "192g"): the gigabytes, else 0.
double memory_word_gb(const std::string& word) {
  std::size_t digits = 0;
  while (digits < word.size() && std::isdigit(static_cast<unsigned char>(word[digits]))) ++digits;
  if (digits == 0 || digits > 4) return 0;
  const std::string unit = word.substr(digits);
  if (unit != "gb" && unit != "g" && unit != "gib") return 0;
  return std::stod(word.substr(0, digits));
}

// Whether a GPU's datasheet memory is the size a name gives (marketing rounds it: the B200's
// 180 GB is sold as 192).
bool memory_matches(const GpuSpec& g, double gb) {
  return std::abs(g.mem_gb - gb) <= std::max(2.0, 0.08 * gb);
}

// Whether each of `want` begins a word of the GPU's id, name or an alias ("sxm" begins "sxm5").
bool has_words(const GpuSpec& g, const std::vector<std::string>& want) {
  std::vector<std::string> own = words_of(g.id);
  for (const std::string& n : words_of(g.name)) own.push_back(n);
  for (const auto& a : g.aliases)
    for (const std::string& n : words_of(a)) own.push_back(n);
  return std::all_of(want.begin(), want.end(), [&](const std::string& w) {
    return std::any_of(own.begin(), own.end(),
                       [&](const std::string& o) { return o.rfind(w, 0) == 0; });
  });
}

// The one catalog GPU whose names hold `want` and whose memory is `gb`; none when none or several.
const GpuSpec* one_gpu_with(const std::vector<std::string>& want, double gb) {
  const GpuSpec* found = nullptr;
  for (const auto& g : gpu_catalog()) {
    if (!memory_matches(g, gb) || !has_words(g, want)) continue;
    if (found) return nullptr;  // two of those names and that size: the name does not say which
    found = &g;
  }
  return found;
}

// Words of a module's form that a GPU's names may leave out (the B200 is SXM only).
bool form_word(const std::string& w) {
  return w == "sxm" || w == "sxm4" || w == "sxm5" || w == "sxm6" || w == "hgx" || w == "oam";
}

}  // namespace

const GpuSpec* lookup_gpu(std::string_view name) {
  if (const GpuSpec* g = exact_gpu(name)) return g;
  // A name with its memory's size, as benchmark results print them ("H100-SXM-80GB",
  // "B200-SXM-180GB", "MI300X 192GB", "H100 94GB"): the GPU the rest of the name gives when its
  // memory is that size, else the one GPU whose names hold every other word of it (a word may
  // begin one of theirs) and whose memory is that size, the module's form words left out when
  // none holds them.
  std::vector<std::string> rest;
  double gb = 0;
  for (std::string& w : words_of(name)) {
    if (const double size = memory_word_gb(w); size > 0 && gb == 0)
      gb = size;
    else
      rest.push_back(std::move(w));
  }
  if (gb == 0 || rest.empty()) return nullptr;
  std::string joined;
  for (const std::string& w : rest) joined += (joined.empty() ? "" : " ") + w;
  if (const GpuSpec* g = exact_gpu(joined); g && memory_matches(*g, gb)) return g;
  if (const GpuSpec* g = one_gpu_with(rest, gb)) return g;
  std::erase_if(rest, form_word);
  return rest.empty() ? nullptr : one_gpu_with(rest, gb);
}

const GpuSpec& find_gpu(std::string_view name) {
  if (const GpuSpec* g = lookup_gpu(name)) return *g;
  std::vector<std::string> ids;
  for (const auto& g : gpu_catalog()) ids.push_back(g.id);
  const std::string close = did_you_mean(name, ids);
  std::string msg = "unknown GPU '" + std::string(name) + "'";
  msg +=
      close.empty() ? "; run 'tilecast gpus' for the catalog, or pass a spec file" : "; " + close;
  throw Error(msg);
}

}  // namespace tilecast
