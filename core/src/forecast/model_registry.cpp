// The model registry: the embedded manifests, the kind table, and the entries a kernel's model
// is looked up in (lock-free reads: entries are published by an atomic count and never change).
#include "forecast/model_registry.hpp"

#include <algorithm>
#include <array>
#include <atomic>

#include "common/embedded_data.hpp"
#include "common/json_fields.hpp"
#include "common/sort_by_key.hpp"
#include "forecast/predictor.hpp"
#include "kernel/family.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_not_loaded.hpp"
#include "tilecast/roofline.hpp"

namespace tilecast {

// The kinds: one factory each, defined beside its predictor.
std::shared_ptr<const KernelPredictor> make_learned_net(const ModelSource& src);  // predictor.cpp
std::shared_ptr<const KernelPredictor> make_tensor_gemm(
    const ModelSource& src);  // tensor_gemm_predictor.cpp
std::shared_ptr<const KernelPredictor> make_amd_gemm(
    const ModelSource& src);  // amd_gemm_predictor.cpp

namespace {

// Whether a list of precisions (a model's or a transfer's) has `dtype`.
bool has_precision(const std::vector<DataType>& precisions, DataType dtype) {
  return std::find(precisions.begin(), precisions.end(), dtype) != precisions.end();
}

struct Kind {
  std::string_view name;
  std::shared_ptr<const KernelPredictor> (*make)(const ModelSource& src);
};
// The nets of NeuSight's method (learned/weights.hpp); the analytic tensor-core GEMM model
// (learned/tensor_gemm.hpp); the analytic AMD matrix-core GEMM model (learned/amd_gemm.hpp).
constexpr Kind kKinds[] = {
    {"learned_net", make_learned_net},
    {"tensor_gemm", make_tensor_gemm},
    {"amd_gemm", make_amd_gemm},
};

const Kind& kind_named(std::string_view name, std::string_view origin) {
  for (const Kind& k : kKinds)
    if (k.name == name) return k;
  std::string known;
  for (const Kind& k : kKinds) known += (known.empty() ? "" : ", ") + std::string(k.name);
  throw Error(std::string(origin) + ": field 'kind' is '" + std::string(name) +
              "'; allowed: " + known);
}

constexpr std::string_view kModelsFolder = "core/data/models/";
constexpr std::string_view kManifest = "/manifest.json";

// The models the kind table builds from embedded files.
class EmbeddedSource final : public ModelSource {
 public:
  using ModelSource::ModelSource;
  std::string_view text(std::string_view role, std::string& origin) const override {
    const ModelManifest& m = manifest();
    const bool own = m.files.count(std::string(role)) > 0;
    if (!own && m.uses.empty()) return {};
    return embedded_model_text(own ? std::string_view(m.id) : std::string_view(m.uses), role,
                               &origin);
  }
  bool has(std::string_view role) const override {
    const ModelManifest& m = manifest();
    if (m.files.count(std::string(role))) return true;
    const ModelManifest* used = m.uses.empty() ? nullptr : find_manifest(m.uses);
    return used && used->files.count(std::string(role));
  }
  bool embedded() const override { return true; }
  std::shared_ptr<const KernelPredictor> used() const override {
    return manifest().uses.empty() ? nullptr : embedded_model(manifest().uses);
  }
};

class TextSource final : public ModelSource {
 public:
  TextSource(const ModelManifest& m, const std::map<std::string, std::string_view>& texts,
             const std::map<std::string, std::string>& origins,
             std::shared_ptr<const KernelPredictor> used)
      : ModelSource(m), texts_(texts), origins_(origins), used_(std::move(used)) {}
  std::string_view text(std::string_view role, std::string& origin) const override {
    const auto t = texts_.find(std::string(role));
    if (t == texts_.end()) return {};
    const auto o = origins_.find(std::string(role));
    origin = o != origins_.end() ? o->second : manifest().id + " (" + std::string(role) + ")";
    return t->second;
  }
  bool has(std::string_view role) const override { return texts_.count(std::string(role)) > 0; }
  std::shared_ptr<const KernelPredictor> used() const override { return used_; }

 private:
  const std::map<std::string, std::string_view>& texts_;
  const std::map<std::string, std::string>& origins_;
  std::shared_ptr<const KernelPredictor> used_;
};

// An embedded model, built on its first forecast: a page whose first forecast is for an
// NVIDIA GPU in FP32 never parses the FP16 or AMD weights (docs/web.md, "Start-up").
class LazyModel final : public KernelPredictor {
 public:
  explicit LazyModel(const ModelManifest& m) : manifest_(m) {}
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    return built().forecast(gpu, kernel);
  }
  std::string_view name() const override { return "tilecast"; }  // every learned model's
  bool covers(const Kernel& kernel) const override { return built().covers(kernel); }
  const std::shared_ptr<const KernelPredictor>& model() const {
    std::call_once(once_, [this] {
      model_ = kind_named(manifest_.kind, manifest_.id).make(EmbeddedSource(manifest_));
    });
    return model_;
  }

 private:
  const KernelPredictor& built() const { return *model(); }
  const ModelManifest& manifest_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<const KernelPredictor> model_;
};

// A transfer's forecasts at its measured time multiple (ModelManifest::Transfer): the model's
// latency times the multiple, its utilization of the roofline following.
class TimeMultiple final : public KernelPredictor {
 public:
  TimeMultiple(std::shared_ptr<const KernelPredictor> model, double multiple)
      : model_(std::move(model)), multiple_(multiple) {}
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    KernelForecast f = model_->forecast(gpu, kernel);
    set_latency(f, f.latency_ms * multiple_);
    return f;
  }
  std::string_view name() const override { return model_->name(); }
  bool covers(const Kernel& kernel) const override { return model_->covers(kernel); }

 private:
  std::shared_ptr<const KernelPredictor> model_;
  double multiple_;
};

// A type forecast with another's inputs (ModelManifest::inputs_as): the model's forecast of the
// kernel in that type, held to the kernel's own roofline.
class InputsAs final : public KernelPredictor {
 public:
  InputsAs(std::shared_ptr<const KernelPredictor> model, DataType as)
      : model_(std::move(model)), as_(as) {}
  KernelForecast forecast(const GpuSpec& gpu, const Kernel& kernel) const override {
    KernelForecast f = model_->forecast(gpu, twin(kernel));
    f.roofline_ms = roofline_latency_ms(gpu, kernel);
    set_latency(f, std::max(f.latency_ms, f.roofline_ms));
    return f;
  }
  std::string_view name() const override { return model_->name(); }
  bool covers(const Kernel& kernel) const override { return model_->covers(twin(kernel)); }

 private:
  Kernel twin(Kernel k) const {
    k.dtype = as_;
    return k;
  }
  std::shared_ptr<const KernelPredictor> model_;
  DataType as_;
};

struct Entry {
  LearnedModelKey key;
  std::shared_ptr<const KernelPredictor> model;
  std::string model_id;      // its manifest's id (empty: entered by register_learned_model)
  double time_multiple = 1;  // a transfer's (ModelManifest::Transfer::time_multiple)
};

constexpr int kMaxEntries = 256;
struct Registry {
  std::mutex write;
  std::array<Entry, kMaxEntries> entries;
  std::atomic<int> count{0};
  std::vector<std::shared_ptr<const LazyModel>> embedded;  // by embedded_manifests()' order
};

void add(Registry& r, const ModelManifest& m, const std::shared_ptr<const KernelPredictor>& model) {
  const std::string vendor = m.serves_any_vendor ? "" : m.vendor;
  const std::vector<std::string> families =
      m.families.empty() ? std::vector<std::string>{""} : m.families;
  int n = r.count.load(std::memory_order_relaxed);
  // the model for type t: with another type's inputs where the manifest says so
  const auto typed = [&m](const std::shared_ptr<const KernelPredictor>& p, DataType t) {
    const auto as = m.inputs_as.find(t);
    return as == m.inputs_as.end() ? p : std::make_shared<const InputsAs>(p, as->second);
  };
  for (DataType t : m.precisions)
    for (const std::string& family : families) {
      if (n >= kMaxEntries) throw Error("register_learned_model: the registry is full");
      r.entries[std::size_t(n++)] = {{vendor, t, family}, typed(model, t), m.id};
    }
  for (const ModelManifest::Transfer& x : m.transfers) {
    const auto scaled =
        x.time_multiple == 1 ? model : std::make_shared<const TimeMultiple>(model, x.time_multiple);
    for (DataType t : x.precisions)
      for (const std::string& family : families) {
        if (n >= kMaxEntries) throw Error("register_learned_model: the registry is full");
        r.entries[std::size_t(n++)] = {
            {x.vendor, t, family, true}, typed(scaled, t), m.id, x.time_multiple};
      }
  }
  r.count.store(n, std::memory_order_release);
}

Registry& registry() {
  static Registry* const r = [] {
    auto* reg = new Registry;  // never destroyed, like the embedded data it points to
    for (const ModelManifest& m : embedded_manifests()) {
      auto lazy = std::make_shared<const LazyModel>(m);
      reg->embedded.push_back(lazy);
      add(*reg, m, lazy);
    }
    return reg;
  }();
  return *r;
}

// The most specific entry for the kernel (a model of its own before a transfer, then vendor
// before family; among equals the latest), or null.
const Entry* find_entry(const GpuSpec& gpu, const Kernel& kernel) {
  const std::string_view family = family_of(kernel.op).name;
  const Registry& r = registry();
  const int n = r.count.load(std::memory_order_acquire);
  const Entry* best = nullptr;
  int best_score = -1;
  for (int i = 0; i < n; ++i) {
    const LearnedModelKey& key = r.entries[std::size_t(i)].key;
    if (key.dtype != kernel.dtype) continue;
    if (!key.vendor.empty() && key.vendor != gpu.vendor) continue;
    if (!key.family.empty() && key.family != family) continue;
    const int score =
        (key.transfer ? 0 : 4) + (key.vendor.empty() ? 0 : 2) + (key.family.empty() ? 0 : 1);
    if (score >= best_score) {
      best = &r.entries[std::size_t(i)];
      best_score = score;
    }
  }
  return best;
}

constexpr EnumName<Timing> kTimings[] = {{"per_call", Timing::per_call},
                                         {"kernel_only", Timing::kernel_only}};
EnumNames<Timing> timing_names() { return kTimings; }

const KernelPredictor* find_learned_model(const GpuSpec& gpu, const Kernel& kernel) {
  const Entry* e = find_entry(gpu, kernel);
  return e ? e->model.get() : nullptr;
}

}  // namespace

ModelManifest parse_model_manifest(std::string_view json_text, std::string_view origin) {
  const nlohmann::json j = detail::parse_json(json_text, origin);
  ModelManifest m;
  m.id = detail::string_field(j, "id", origin);
  m.kind = std::string(kind_named(detail::string_field(j, "kind", origin), origin).name);
  m.vendor = detail::string_field(j, "vendor", origin);
  m.serves_any_vendor = detail::bool_field(j, "serves_any_vendor", origin, false);
  for (const std::string& p : detail::string_list_field(j, "precisions", origin)) {
    try {
      m.precisions.push_back(parse_dtype(p));
    } catch (const Error& e) {
      throw Error(std::string(origin) + ": field 'precisions': " + e.what());
    }
  }
  if (m.precisions.empty())
    throw Error(std::string(origin) + ": field 'precisions' must list at least one data type");
  if (detail::has_field(j, "inputs_as")) {
    const std::string where = std::string(origin) + ": field 'inputs_as'";
    if (!j["inputs_as"].is_object())
      throw Error(where + " must map a data type it serves to the one whose inputs it takes");
    for (const auto& [from, to] : j["inputs_as"].items()) {
      try {
        const DataType t = parse_dtype(from);
        if (!has_precision(m.precisions, t))
          throw Error("'" + from + "' is not one of the model's precisions, so it has no " +
                      "inputs to take");
        if (!to.is_string()) throw Error("'" + from + "' must name a data type");
        const DataType as = parse_dtype(to.get<std::string>());
        if (!has_precision(m.precisions, as) || as == t)
          throw Error("'" + from + "' takes " + to.get<std::string>() +
                      "'s inputs, which must be another of its precisions");
        m.inputs_as[t] = as;
      } catch (const Error& e) {
        throw Error(where + ": " + e.what());
      }
    }
  }
  m.families = detail::string_list_field(j, "families", origin);
  for (const std::string& f : m.families)
    if (!find_family(f))
      throw Error(std::string(origin) + ": field 'families' names '" + f +
                  "', which is no op family");
  if (!detail::has_field(j, "files") || !j["files"].is_object())
    throw Error(std::string(origin) + ": field 'files' must map roles to file names");
  for (const auto& [role, file] : j["files"].items()) {
    if (!file.is_string() || file.get<std::string>().empty() ||
        file.get<std::string>().find('/') != std::string::npos)
      throw Error(std::string(origin) + ": field 'files." + role +
                  "' must be a file name in the model's folder");
    m.files[role] = file.get<std::string>();
  }
  m.uses = detail::string_field(j, "uses", origin, false);
  m.trained_on = detail::string_list_field(j, "trained_on", origin);
  if (detail::has_field(j, "timing")) {
    const std::string t = detail::string_field(j, "timing", origin);
    try {
      m.timing = parse_enum(timing_names(), t, "a timing");
    } catch (const Error& e) {
      throw Error(std::string(origin) + ": field 'timing': " + e.what());
    }
  }
  m.command = detail::string_field(j, "command", origin, false);
  m.hash = detail::string_field(j, "hash", origin, false);
  if (detail::has_field(j, "train")) {
    if (j["train"].is_string())
      m.train_with = j["train"].get<std::string>();
    else
      m.train = detail::string_list_field(j, "train", origin);
    if (m.train_with.empty() && m.train.empty())
      throw Error(std::string(origin) +
                  ": field 'train' must list a command and its arguments, or name the model "
                  "whose recipe trains this one");
  }
  if (detail::has_field(j, "transfers")) {
    if (!j["transfers"].is_array())
      throw Error(std::string(origin) + ": field 'transfers' must be a list");
    for (const auto& x : j["transfers"]) {
      const std::string where = std::string(origin) + ": field 'transfers'";
      if (!x.is_object())
        throw Error(where + " must list objects {vendor, precisions, note}, got " + x.dump());
      ModelManifest::Transfer t;
      t.vendor = detail::string_field(x, "vendor", where);
      t.note = detail::string_field(x, "note", where);
      for (const std::string& p : detail::string_list_field(x, "precisions", where)) {
        try {
          t.precisions.push_back(parse_dtype(p));
        } catch (const Error& e) {
          throw Error(where + ": field 'precisions': " + e.what());
        }
        if (has_precision(m.precisions, t.precisions.back()) &&
            (t.vendor == m.vendor || m.serves_any_vendor))
          throw Error(where + ": " + t.vendor + " " + p + " is the model's own, not a transfer");
      }
      if (t.vendor.empty() || t.precisions.empty())
        throw Error(where + " must name a vendor and at least one precision");
      if (detail::has_field(x, "time_multiple")) {
        t.time_multiple = detail::number_field(x, "time_multiple", where, 0.1, 10);
        t.calibration = detail::string_field(x, "calibration", where);
      }
      m.transfers.push_back(std::move(t));
    }
  }
  return m;
}

const std::vector<ModelManifest>& embedded_manifests() {
  static const std::vector<ModelManifest> manifests = [] {
    std::vector<ModelManifest> out;
    for (std::size_t k = 0; k < embedded::kFileCount; ++k) {
      const std::string_view path = embedded::kFiles[k].path;
      if (path.substr(0, kModelsFolder.size()) != kModelsFolder ||
          path.size() <= kModelsFolder.size() + kManifest.size() ||
          path.substr(path.size() - kManifest.size()) != kManifest)
        continue;
      ModelManifest m = parse_model_manifest(embedded::find(path), path);
      const std::string_view folder =
          path.substr(kModelsFolder.size(), path.size() - kModelsFolder.size() - kManifest.size());
      if (m.id != folder)
        throw Error(std::string(path) + ": field 'id' is '" + m.id + "'; it must be '" +
                    std::string(folder) + "', the folder's name");
      out.push_back(std::move(m));
    }
    detail::sort_by_key(out, [](const ModelManifest& m) -> const std::string& { return m.id; });
    for (const ModelManifest& m : out)
      if (!m.uses.empty() && !std::any_of(out.begin(), out.end(),
                                          [&](const ModelManifest& u) { return u.id == m.uses; }))
        throw Error(std::string(kModelsFolder) + m.id + "/manifest.json: field 'uses' names '" +
                    m.uses + "', which is not built in");
    for (const ModelManifest& m : out)
      if (!m.train_with.empty() &&
          !std::any_of(out.begin(), out.end(), [&](const ModelManifest& u) {
            return u.id == m.train_with && !u.train.empty();
          }))
        throw Error(std::string(kModelsFolder) + m.id + "/manifest.json: field 'train' names '" +
                    m.train_with + "', which is no built-in model with a training recipe");
    return out;
  }();
  return manifests;
}

const ModelManifest* find_manifest(std::string_view id) {
  for (const ModelManifest& m : embedded_manifests())
    if (m.id == id) return &m;
  return nullptr;
}

const ModelManifest* manifest_for(std::string_view vendor, DataType dtype,
                                  std::string_view family) {
  const ModelManifest* best = nullptr;
  int best_score = -1;
  for (const ModelManifest& m : embedded_manifests()) {
    const bool transfer = std::any_of(m.transfers.begin(), m.transfers.end(), [&](const auto& t) {
      return t.vendor == vendor && has_precision(t.precisions, dtype);
    });
    const bool listed = has_precision(m.precisions, dtype);
    const bool own = listed && m.vendor == vendor;
    if (!own && !(listed && m.serves_any_vendor) && !transfer) continue;
    const bool whole = m.families.empty();
    if (!m.serves_family(family)) continue;
    const int score = (own || (listed && m.serves_any_vendor) ? 4 : 0) +
                      (own && !m.serves_any_vendor ? 2 : 0) + (whole ? 0 : 1);
    if (score > best_score) {
      best = &m;
      best_score = score;
    }
  }
  return best;
}

std::vector<TransferUse> transfers_to(std::string_view vendor, DataType dtype) {
  std::vector<TransferUse> out;
  for (const ModelManifest& m : embedded_manifests())
    for (const ModelManifest::Transfer& t : m.transfers)
      if (t.vendor == vendor && has_precision(t.precisions, dtype)) out.push_back({&m, &t});
  return out;
}

namespace {

// The files of models this build does not embed, as load_model_files was given them
// (path -> text; entries are never changed or removed, so views of them stay valid).
struct LoadedFiles {
  std::mutex lock;
  std::map<std::string, std::string, std::less<>> text;
};
LoadedFiles& loaded_files() {
  static LoadedFiles* const files = new LoadedFiles;  // never destroyed, like the embedded data
  return *files;
}

std::string model_file_path(const ModelManifest& m, const std::string& file) {
  return std::string(kModelsFolder) + m.id + "/" + file;
}

}  // namespace

std::string_view embedded_model_text(std::string_view id, std::string_view role,
                                     std::string* origin) {
  const ModelManifest* m = find_manifest(id);
  if (!m) return {};
  const auto f = m->files.find(std::string(role));
  if (f == m->files.end()) return {};
  const std::string path = model_file_path(*m, f->second);
  if (origin) *origin = path;
  if (embedded::has(path)) return embedded::find(path);
  LoadedFiles& loaded = loaded_files();
  const std::lock_guard<std::mutex> hold(loaded.lock);
  const auto t = loaded.text.find(path);
  if (t == loaded.text.end()) throw ModelNotLoaded(m->id);
  return t->second;
}

bool model_embedded(std::string_view id) {
  const ModelManifest* m = find_manifest(id);
  if (!m) return false;
  for (const auto& [role, file] : m->files)
    if (!embedded::has(model_file_path(*m, file))) return false;
  return true;
}

void load_model_files(std::string_view id, const std::map<std::string, std::string>& files) {
  const ModelManifest* m = find_manifest(id);
  if (!m) throw Error("load model: no model '" + std::string(id) + "' is built in");
  for (const auto& [role, text] : files)
    if (!m->files.count(role))
      throw Error("load model '" + m->id + "': field 'files." + role + "': the model has no '" +
                  role + "' file (its manifest's roles are the allowed ones)");
  for (const auto& [role, file] : m->files)
    if (!files.count(role))
      throw Error("load model '" + m->id + "': field 'files." + role + "' (" + file +
                  ") is missing");
  if (model_embedded(id)) return;  // the embedded files answer, whatever was given
  LoadedFiles& loaded = loaded_files();
  std::vector<std::string> added;
  {
    const std::lock_guard<std::mutex> hold(loaded.lock);
    for (const auto& [role, file] : m->files) {
      const std::string path = model_file_path(*m, file);
      const std::string& text = files.at(role);
      const auto t = loaded.text.find(path);
      if (t == loaded.text.end()) {
        loaded.text.emplace(path, text);
        added.push_back(path);
      } else if (t->second != text) {
        throw Error("load model '" + m->id + "': " + path +
                    " is already loaded with other text (reload to take a new version)");
      }
    }
  }
  // Built now, so that a malformed file is this call's error (naming the file), not a
  // forecast's; a model that failed to build takes none of the given files.
  try {
    embedded_model(id);
  } catch (const ModelNotLoaded&) {  // the model it uses is not loaded yet: checked on use
  } catch (...) {
    const std::lock_guard<std::mutex> hold(loaded.lock);
    for (const std::string& path : added) loaded.text.erase(path);
    throw;
  }
}

const KernelWeights& embedded_weights(std::string_view id) {
  return embedded_model_part<KernelWeights>(id, "weights", parse_kernel_weights);
}

const TileTable& embedded_tile_table(std::string_view id) {
  return embedded_model_part<TileTable>(id, "tile_table", parse_tile_table);
}

std::shared_ptr<const KernelPredictor> embedded_model(std::string_view id) {
  const Registry& r = registry();
  const std::vector<ModelManifest>& all = embedded_manifests();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].id == id) return r.embedded[i]->model();
  throw Error("no model '" + std::string(id) + "' is built in (core/data/models/)");
}

std::shared_ptr<const KernelPredictor> build_model(
    const ModelManifest& m, const std::map<std::string, std::string_view>& texts,
    const std::map<std::string, std::string>& origins,
    std::shared_ptr<const KernelPredictor> used) {
  return kind_named(m.kind, m.id).make(TextSource(m, texts, origins, std::move(used)));
}

void register_learned_model(LearnedModelKey key, std::shared_ptr<const KernelPredictor> model,
                            std::string model_id) {
  if (!model) throw Error("register_learned_model: no model given");
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.write);
  const int n = r.count.load(std::memory_order_relaxed);
  if (n >= kMaxEntries) throw Error("register_learned_model: the registry is full");
  r.entries[std::size_t(n)] = {std::move(key), std::move(model), std::move(model_id)};
  r.count.store(n + 1, std::memory_order_release);
}

void register_model(const ModelManifest& m, std::shared_ptr<const KernelPredictor> model) {
  if (!model) throw Error("register_model: no model given");
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.write);
  add(r, m, model);
}

const KernelPredictor& learned_model(const GpuSpec& gpu, const Kernel& kernel) {
  const KernelPredictor* best = find_learned_model(gpu, kernel);
  if (!best)
    throw Error("no learned model for " + std::string(dtype_name(kernel.dtype)) +
                " kernels yet; use --predictor roofline");
  return *best;
}

bool has_learned_model(const GpuSpec& gpu, const Kernel& kernel) {
  const KernelPredictor* model = find_learned_model(gpu, kernel);
  return model && model->covers(kernel);
}

bool is_transferred(const GpuSpec& gpu, const Kernel& kernel) {
  const Entry* e = find_entry(gpu, kernel);
  return e && e->key.transfer;
}

double transfer_time_multiple(const GpuSpec& gpu, const Kernel& kernel) {
  const Entry* e = find_entry(gpu, kernel);
  return e && e->key.transfer ? e->time_multiple : 1.0;
}

bool timed_kernel_only(const GpuSpec& gpu, const Kernel& kernel) {
  const Entry* e = find_entry(gpu, kernel);
  if (!e || e->model_id.empty()) return false;
  const ModelManifest* m = find_manifest(e->model_id);
  return m && m->timing == Timing::kernel_only;
}

std::string transfer_use_key(const GpuSpec& gpu, const Kernel& kernel) {
  const Entry* e = find_entry(gpu, kernel);
  if (!e || !e->key.transfer) return {};
  return e->model_id + " " + std::string(dtype_name(kernel.dtype)) + " " +
         std::string(family_of(kernel.op).name);
}

std::vector<std::string> transfer_families_used(const TransferUse& u, DataType dtype,
                                                const std::vector<std::string>& used) {
  const std::string prefix = u.model->id + " " + std::string(dtype_name(dtype)) + " ";
  std::vector<std::string> families;
  for (const std::string& key : used)
    if (key.rfind(prefix, 0) == 0) families.push_back(key.substr(prefix.size()));
  return families;  // in `used`'s order (sorted)
}

}  // namespace tilecast
