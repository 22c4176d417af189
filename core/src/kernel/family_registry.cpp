// The family registry: the built-in families at first use, then any registered later. Reads
// take no lock: entries are published by an atomic count and never change or go away.
#include <array>
#include <atomic>
#include <memory>
#include <mutex>

#include "kernel/family.hpp"
#include "tilecast/error.hpp"

namespace tilecast {
namespace {

constexpr int kMaxFamilies = 64;
constexpr int kMaxOps = 512;

struct OpEntry {
  int family = -1;
  const FamilyTraits* family_traits = nullptr;
  const OpTraits* traits = nullptr;
};

struct FamilyTable {
  std::mutex write;
  std::array<std::unique_ptr<const FamilyTraits>, kMaxFamilies> families;
  std::array<OpEntry, kMaxOps> ops;
  std::atomic<int> family_n{0};
  std::atomic<int> op_n{0};
  int builtin_n = 0;
};

void check_traits(const FamilyTable& r, const FamilyTraits& t) {
  const std::string what = "op family '" + t.name + "'";
  if (t.name.empty()) throw Error("an op family needs a name");
  if (!t.plan || !t.elements || !t.flops || !t.bytes)
    throw Error(what + " needs a plan, elements, flops and bytes function");
  if (t.ops.empty()) throw Error(what + " has no ops");
  if (t.features.size() > std::size_t(kMaxFeatures))
    throw Error(what + " has " + std::to_string(t.features.size()) + " features; at most " +
                std::to_string(kMaxFeatures));
  for (const Feature& f : t.features)
    if (f.name.empty() || !f.value) throw Error(what + ": every feature needs a name and value");
  const int nf = r.family_n.load(std::memory_order_acquire);
  const int no = r.op_n.load(std::memory_order_acquire);
  if (nf >= kMaxFamilies || no + int(t.ops.size()) > kMaxOps)
    throw Error(what + ": the op registry is full");
  for (int i = 0; i < nf; ++i)
    if (r.families[std::size_t(i)]->name == t.name) throw Error(what + " is already registered");
  for (std::size_t i = 0; i < t.ops.size(); ++i) {
    const OpTraits& op = t.ops[i];
    if (op.name.empty() || op.dims.empty() || op.dims.size() > 4)
      throw Error(what + ": every op needs a name and 1 to 4 dims");
    for (int j = 0; j < no; ++j)
      if (r.ops[std::size_t(j)].traits->name == op.name)
        throw Error(what + ": op '" + op.name + "' is already registered");
    for (std::size_t j = 0; j < i; ++j)
      if (t.ops[j].name == op.name) throw Error(what + ": op '" + op.name + "' is listed twice");
  }
}

int add(FamilyTable& r, FamilyTraits traits) {
  check_traits(r, traits);
  auto owned = std::make_unique<const FamilyTraits>(std::move(traits));
  const int id = r.family_n.load(std::memory_order_relaxed);
  int op = r.op_n.load(std::memory_order_relaxed);
  for (const OpTraits& t : owned->ops) r.ops[std::size_t(op++)] = {id, owned.get(), &t};
  r.families[std::size_t(id)] = std::move(owned);
  r.op_n.store(op, std::memory_order_release);
  r.family_n.store(id + 1, std::memory_order_release);
  return id;
}

FamilyTable& family_table() {
  static FamilyTable* const r = [] {
    auto* reg = new FamilyTable;  // never destroyed: forecasts may run during static teardown
    for (FamilyTraits& t : builtin_families()) add(*reg, std::move(t));
    reg->builtin_n = reg->family_n.load();
    for (FamilyTraits& t : half_precision_families()) add(*reg, std::move(t));
    return reg;
  }();
  return *r;
}

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void unknown_op(int id) {
  throw Error("unknown op id " + std::to_string(id));
}

// On every forecast's path (FLOPs, bytes, peaks, plans, features all ask for it).
const OpEntry& entry(Op op) {
  const FamilyTable& r = family_table();
  const int i = static_cast<int>(op);
  if (i < 0 || i >= r.op_n.load(std::memory_order_acquire)) unknown_op(i);
  return r.ops[std::size_t(i)];
}

}  // namespace

OpFamily register_family(FamilyTraits traits) {
  FamilyTable& r = family_table();
  const std::lock_guard<std::mutex> lock(r.write);
  return static_cast<OpFamily>(add(r, std::move(traits)));
}

const FamilyTraits& family_traits(OpFamily family) {
  const FamilyTable& r = family_table();
  const int i = static_cast<int>(family);
  if (i < 0 || i >= r.family_n.load(std::memory_order_acquire))
    throw Error("unknown op family id " + std::to_string(i));
  return *r.families[std::size_t(i)];
}

const FamilyTraits& family_of(Op op) { return *entry(op).family_traits; }

const OpTraits& op_traits(Op op) { return *entry(op).traits; }

OpFamily op_family(Op op) { return static_cast<OpFamily>(entry(op).family); }

const FamilyTraits* find_family(std::string_view name) {
  const FamilyTable& r = family_table();
  const int n = r.family_n.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (r.families[std::size_t(i)]->name == name) return r.families[std::size_t(i)].get();
  return nullptr;
}

int family_count() { return family_table().family_n.load(std::memory_order_acquire); }

int builtin_family_count() { return family_table().builtin_n; }

std::vector<Op> family_ops(OpFamily family) {
  const FamilyTable& r = family_table();
  std::vector<Op> out;
  const int n = r.op_n.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (r.ops[std::size_t(i)].family == static_cast<int>(family)) out.push_back(static_cast<Op>(i));
  return out;
}

TilePlan plan_kernel(const GpuSpec& gpu, const Kernel& kernel, const TileTable& gemm_tiles,
                     const LibraryProfile& library) {
  return family_of(kernel.op).plan(PlanInputs{gpu, kernel, library, gemm_tiles});
}

}  // namespace tilecast
