#include "tilecast/gpu_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "common/embedded_data.hpp"
#include "common/format.hpp"
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

// The catalog GPUs whose names hold `want`, of memory `gb` (any memory when 0).
std::vector<const GpuSpec*> gpus_with(const std::vector<std::string>& want, double gb) {
  std::vector<const GpuSpec*> found;
  for (const auto& g : gpu_catalog())
    if ((gb == 0 || memory_matches(g, gb)) && has_words(g, want)) found.push_back(&g);
  return found;
}

// Words of a module's form that a GPU's names may leave out (the B200 is SXM only).
bool form_word(const std::string& w) {
  return w == "sxm" || w == "sxm4" || w == "sxm5" || w == "sxm6" || w == "hgx" || w == "oam";
}

// A name with its memory's size, as benchmark results print them ("H100-SXM-80GB",
// "B200-SXM-180GB", "MI300X 192GB", "H100 94GB"): its other words and the size (0: none).
struct SizedName {
  std::vector<std::string> rest;
  double gb = 0;
};
SizedName sized_name(std::string_view name) {
  SizedName n;
  for (std::string& w : words_of(name)) {
    if (const double size = memory_word_gb(w); size > 0 && n.gb == 0)
      n.gb = size;
    else
      n.rest.push_back(std::move(w));
  }
  return n;
}

// The GPUs a sized name's other words give, of memory `gb` (any when 0): those whose names hold
// every word (a word may begin one of theirs), else every word but the module's form words.
std::vector<const GpuSpec*> gpus_named(std::vector<std::string> rest, double gb) {
  std::vector<const GpuSpec*> found = gpus_with(rest, gb);
  if (!found.empty()) return found;
  std::erase_if(rest, form_word);
  return rest.empty() ? found : gpus_with(rest, gb);
}

}  // namespace

const GpuSpec* lookup_gpu(std::string_view name) {
  if (const GpuSpec* g = exact_gpu(name)) return g;
  // A name with its memory's size: the GPU the rest of the name gives when its memory is that
  // size, else the one GPU the other words name whose memory is that size.
  const SizedName n = sized_name(name);
  if (n.gb == 0 || n.rest.empty()) return nullptr;
  std::string joined;
  for (const std::string& w : n.rest) joined += (joined.empty() ? "" : " ") + w;
  if (const GpuSpec* g = exact_gpu(joined); g && memory_matches(*g, n.gb)) return g;
  const std::vector<const GpuSpec*> found = gpus_named(n.rest, n.gb);
  return found.size() == 1 ? found.front() : nullptr;  // several: the name does not say which
}

const GpuSpec& find_gpu(std::string_view name) {
  if (const GpuSpec* g = lookup_gpu(name)) return *g;
  std::vector<std::string> ids;
  for (const auto& g : gpu_catalog()) ids.push_back(g.id);
  const std::string close = did_you_mean(name, ids);
  std::string msg = "unknown GPU '" + std::string(name) + "'";
  // a size none of the GPUs so named has, or several that do: those GPUs, with their memory
  if (const SizedName n = sized_name(name); n.gb > 0 && !n.rest.empty()) {
    std::vector<std::string> named;
    for (const GpuSpec* g : gpus_named(n.rest, 0))
      named.push_back(g->id + " (" + detail::format_g(g->mem_gb) + " GB)");
    if (named.size() == 1) throw Error(msg + ": the catalog GPU of that name is " + named[0]);
    if (!named.empty())
      throw Error(msg + ": the catalog GPUs of that name are " + or_list(named) +
                  "; name one by its id");
  }
  msg +=
      close.empty() ? "; run 'tilecast gpus' for the catalog, or pass a spec file" : "; " + close;
  throw Error(msg);
}

}  // namespace tilecast
