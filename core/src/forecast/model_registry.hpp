// Learned models as data, and the one answer to "which model forecasts this kernel". Each
// model is a folder core/data/models/<id>/ whose manifest.json says what it is (its kind), which
// kernels it serves (vendor, precisions, families), what it was trained on and by which command
// (with the hash the trainer wrote) beside its files. The registry reads the embedded manifests
// (small) and builds a model from its files only when a forecast first needs it (start-up
// cost in the browser: docs/web.md "Start-up"). A model kind is a factory in one file plus a
// line in the kind table (model_registry.cpp).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "forecast/predictor.hpp"
#include "learned/tile_table.hpp"
#include "learned/weights.hpp"
#include "tilecast/error.hpp"
#include "tilecast/precision.hpp"

namespace tilecast {

// What a model's timings held (ModelManifest::timing): each kernel's PyTorch call as a whole,
// launch cost included (NeuSight's per-call protocol), or the kernel alone (vidur's CUDA events).
enum class Timing { per_call, kernel_only };

struct ModelManifest {
  std::string id;      // its folder's name
  std::string kind;    // a name in the kind table, e.g. "learned_net", "tensor_gemm", "amd_gemm"
  std::string vendor;  // whose GPUs it serves (and was trained on)
  // Also the model of GPUs whose vendor has none of its own: a transfer, said in the caveats.
  bool serves_any_vendor = false;
  std::vector<DataType> precisions;
  // A type it serves with another's inputs (features, tiles, roofline): the same kernels on the
  // same bytes, their arithmetic done alike (the FP16 nets' BF16: vLLM's and PyTorch's kernels
  // compute both in FP32), so a forecast does not follow a peak the kernels never use. Each
  // forecast is still held to its own type's roofline.
  std::map<DataType, DataType> inputs_as;
  std::vector<std::string> families;         // empty: every family its files hold
  std::map<std::string, std::string> files;  // role (e.g. "weights") -> file in the folder
  std::string uses;  // the id of a model it builds on (files it lacks, its measured GPUs' model)
  std::vector<std::string> trained_on;  // GPU names, as in the catalog or the device files
  Timing timing = Timing::per_call;     // what its training timings held
  std::string command, hash;            // what made it (as the trainer wrote into its files)
  // How `tilecast train --model ID` remakes it: a CLI command and its arguments, with {data:SET}
  // (../shared/data/SET or --data), {out} and {out:ID} (a model's folder or --out) and brace
  // lists {a,b} expanded (core/cli/model_training.cpp); or, in train_with, the model whose
  // recipe also writes this one's files.
  std::vector<std::string> train;
  std::string train_with;
  // Kernels it also serves without a measurement of them (issue 29, "transfer before roofline"):
  // a (vendor, precision) with no learned model of its own takes this model's efficiency
  // against its own roofline (the kernel's peak and bytes), said in the caveats with `note`.
  struct Transfer {
    std::string vendor;
    std::vector<DataType> precisions;
    std::string note;  // why this model, in a sentence, for the caveat
    // Published timings of the transferred kernels, where there are some: every forecast of
    // the transfer is `time_multiple` times the model's (the median of measured / forecast
    // over those rows, as `calibration`, a command, recomputes it). 1: none measured.
    double time_multiple = 1;
    std::string calibration;
  };
  std::vector<Transfer> transfers;

  // Whether its kernels include `family` (every family when the list is empty).
  bool serves_family(std::string_view family) const {
    return families.empty() ||
           std::find(families.begin(), families.end(), family) != families.end();
  }
};

// Throws tilecast::Error naming `origin` and the field (an unknown kind lists the known ones).
ModelManifest parse_model_manifest(std::string_view json_text, std::string_view origin);

// The embedded models' manifests (core/data/models/*/manifest.json), in id order; read once.
const std::vector<ModelManifest>& embedded_manifests();
const ModelManifest* find_manifest(std::string_view id);
// The embedded model serving (vendor, data type, family): the most specific manifest (a model
// of the type before a transfer (ModelManifest::transfers), vendor before family, one serving
// any vendor last); null when none does. `family` "" asks for a whole set.
const ModelManifest* manifest_for(std::string_view vendor, DataType dtype, std::string_view family);

// A model serving kernels it was not trained on: the manifest, which of its transfers, and the
// families it serves there (empty: every family its files hold).
struct TransferUse {
  const ModelManifest* model = nullptr;
  const ModelManifest::Transfer* transfer = nullptr;
};
// The embedded transfers to (vendor, data type), in id order (for the caveats).
std::vector<TransferUse> transfers_to(std::string_view vendor, DataType dtype);

// What a kind's factory builds a model from.
class ModelSource {
 public:
  explicit ModelSource(const ModelManifest& m) : manifest_(m) {}
  virtual ~ModelSource() = default;
  const ModelManifest& manifest() const { return manifest_; }
  // The text of the file the manifest names for `role` (or, when it names none, the used
  // model's) and, into `origin`, where it came from; empty when neither has one.
  virtual std::string_view text(std::string_view role, std::string& origin) const = 0;
  // Whether text(role) has a file, without reading it.
  virtual bool has(std::string_view role) const = 0;
  // Whether the texts are the embedded files (kept for the process, parsed once).
  virtual bool embedded() const { return false; }
  // The model the manifest uses (built); null when it uses none.
  virtual std::shared_ptr<const KernelPredictor> used() const = 0;

 private:
  const ModelManifest& manifest_;
};
// The one loader of built-in model files: the text of model `id`'s file for `role`, and where
// it is ("core/data/models/<id>/<file>"); empty when the model or its manifest's role is
// unknown. A file this build does not embed comes from load_model_files, or throws
// ModelNotLoaded naming the model when not loaded yet (tilecast/model_not_loaded.hpp).
std::string_view embedded_model_text(std::string_view id, std::string_view role,
                                     std::string* origin = nullptr);
// Whether every file of model `id` is embedded (core/CMakeLists.txt, TILECAST_EMBED_MODELS).
bool model_embedded(std::string_view id);
// Gives the files (role -> text) of built-in model `id` that this build does not embed, for
// the rest of the process: embedded_model_text answers them from then on, so the model is the
// one a build embedding it has (api::load_model). Every role of the manifest and no other;
// builds the model (throws Error naming a malformed file, and then keeps none of them); a
// model whose files are all embedded ignores them.
void load_model_files(std::string_view id, const std::map<std::string, std::string>& files);

// Model `id`'s built-in file for `role`, parsed by `parse` on first use and kept for the
// process; an empty T when the model or its manifest's role is unknown (throws ModelNotLoaded
// for a file neither embedded nor loaded, as embedded_model_text).
template <class T>
const T& embedded_model_part(std::string_view id, std::string_view role,
                             T (*parse)(std::string_view text, std::string_view origin)) {
  static std::mutex lock;
  static std::map<std::string, std::unique_ptr<const T>, std::less<>> parsed;
  const std::string key = std::string(id) + '/' + std::string(role);
  const std::lock_guard<std::mutex> hold(lock);
  auto it = parsed.find(key);
  if (it == parsed.end()) {
    std::string origin;
    const std::string_view text = embedded_model_text(id, role, &origin);
    it = parsed.emplace(key, std::make_unique<const T>(text.empty() ? T{} : parse(text, origin)))
             .first;
  }
  return *it->second;
}

// A source's file for `role`, parsed (an embedded one once, shared; a given text owned by the
// pointer); throws Error naming the role when the source has no such file.
template <class T>
std::shared_ptr<const T> model_part(const ModelSource& src, std::string_view role,
                                    T (*parse)(std::string_view text, std::string_view origin)) {
  std::string origin;
  const std::string_view text = src.text(role, origin);
  if (text.empty())
    throw Error("model '" + src.manifest().id + "' (" + src.manifest().kind + "): no '" +
                std::string(role) + "' file");
  if (!src.embedded()) return std::make_shared<const T>(parse(text, origin));
  const ModelManifest& m = src.manifest();
  const std::string_view owner = m.files.count(std::string(role)) ? m.id : m.uses;
  return std::shared_ptr<const T>(std::shared_ptr<const T>(),
                                  &embedded_model_part<T>(owner, role, parse));
}

// The embedded models' learned weights and GEMM tile tables (their "weights" and "tile_table"
// files), e.g. embedded_weights("nvidia-fp32"); empty when not built in.
const KernelWeights& embedded_weights(std::string_view id);
const TileTable& embedded_tile_table(std::string_view id);

// The embedded model `id`, built on first use; throws Error when it is not built in.
std::shared_ptr<const KernelPredictor> embedded_model(std::string_view id);

// A model of `m.kind` from given texts (role -> text, role -> origin), e.g. weights trained at
// run time; `used` is the model the manifest uses, when it uses one. Throws Error naming the
// origin of a malformed file.
std::shared_ptr<const KernelPredictor> build_model(
    const ModelManifest& m, const std::map<std::string, std::string_view>& texts,
    const std::map<std::string, std::string>& origins,
    std::shared_ptr<const KernelPredictor> used = nullptr);

// Which kernels a learned model serves; an empty vendor or family matches any.
struct LearnedModelKey {
  std::string vendor;
  DataType dtype = DataType::fp32;
  std::string family;
  // A manifest's transfer (ModelManifest::transfers): below every model of the kernel's own
  // (vendor, data type), whatever their families.
  bool transfer = false;
};

// Adds a learned model; the most specific entry for a kernel wins (a model of its own before a
// transfer, then vendor before family), and among equals the latest. Entries are never removed (at
// most 256). The embedded models are entered from their manifests first. `model_id`: the built-in
// model (core/data/models/<id>) it is a version of, whose manifest says what it is (e.g. its
// timing); empty for a model of its own.
void register_learned_model(LearnedModelKey key, std::shared_ptr<const KernelPredictor> model,
                            std::string model_id = {});
// Enters `model` for every (precision, family) of its manifest, for its vendor (any vendor when
// the manifest serves any), and for each of its transfers' (vendor, precision, family).
void register_model(const ModelManifest& m, std::shared_ptr<const KernelPredictor> model);
// The learned model for the GPU's vendor and the kernel's data type and family; throws
// ("no learned model for bf16 kernels yet; use --predictor roofline") when there is none.
const KernelPredictor& learned_model(const GpuSpec& gpu, const Kernel& kernel);
// Whether a learned model covers the kernel: an entry for the GPU's vendor and the kernel's
// data type and family whose model has that family. Where none does, the replays forecast the
// kernel by the roofline (forecast/kernel_times.hpp), the one place that decides so.
bool has_learned_model(const GpuSpec& gpu, const Kernel& kernel);
// Whether the kernel's model is a transfer (learned for another vendor or precision).
bool is_transferred(const GpuSpec& gpu, const Kernel& kernel);
// The transfer's measured time multiple (ModelManifest::Transfer::time_multiple) its forecasts
// of the kernel include; 1 when the kernel's model is not a transfer or the transfer has none.
double transfer_time_multiple(const GpuSpec& gpu, const Kernel& kernel);
// Whether the kernel's model was timed on kernels alone (ModelManifest::timing); false for a
// model entered without a manifest (register_learned_model) or none.
bool timed_kernel_only(const GpuSpec& gpu, const Kernel& kernel);
// "<model id> <type> <family>" (e.g. "nvidia-half-gemm fp8 gemm") when the kernel's model is a
// transfer, else empty: what a replay records (KernelTimes::transfers_used) and the footing
// and the transfer caveats are built from.
std::string transfer_use_key(const GpuSpec& gpu, const Kernel& kernel);
// The families of the `dtype` kernels transfer `u` forecast, of those `used` names
// (transfer_use_key); empty: it forecast none.
std::vector<std::string> transfer_families_used(const TransferUse& u, DataType dtype,
                                                const std::vector<std::string>& used);

}  // namespace tilecast
