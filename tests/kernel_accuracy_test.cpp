// Accuracy of the committed kernel model on the shared test set (the same code as
// `tilecast eval-kernels`), against issue 2's targets. Groups that miss a target
// today are listed in kKnownKernelGaps with a ceiling, so any regression still fails.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

#include "test_paths.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/kernel_csv.hpp"
#include "tilecast/kernel_eval.hpp"

using namespace tilecast;

namespace {

constexpr const char* kUnseenGpu = "NVIDIA A100 80GB PCIe";

std::string family(const std::string& op) {
  if (op == "linear" || op == "bmm" || op == "softmax" || op == "ln") return op;
  return "element-wise";
}

// MAPE targets (%) on the GPU no training uses, per op family.
const std::map<std::string, double> kUnseenTargets = {
    {"bmm", 10}, {"linear", 8}, {"element-wise", 8}, {"softmax", 10}, {"ln", 15}};
constexpr double kTrainingGpuTarget = 10;  // every op on the training GPUs

struct KernelGap {
  const char* gpu;
  const char* group;  // an op, or an op family on the unseen GPU
  double ceiling_pct;
};
// Misses explained in docs/kernel-model.md ("Known gaps").
const KernelGap kKnownKernelGaps[] = {
#include "kernel_accuracy_gaps.inc"
};

// The H200's own BF16 kernels (data/measured/h200/bf16-seed0, never trained on), issue 29's
// targets: GEMMs <= 12 %, the rest <= 15 % MAPE. powu meets its target and is held to it; every
// other op misses today and is held to today's error x 1.05 + 0.5 (tilecast eval-kernels on that
// run, 3 Dec 2026), so a regression fails and a gain can lower its ceiling.
const std::map<std::string, double> kH200Bf16Ceilings = {
    {"add", 18.7},  {"addu", 23.9},   {"bmm", 34.3},  {"div", 19.3},     {"divu", 25.8},
    {"gelu", 40.5}, {"linear", 33.6}, {"ln", 28.0},   {"mul", 20.7},     {"mulu", 25.0},
    {"pow", 24.5},  {"powu", 15.0},   {"relu", 23.1}, {"softmax", 27.4}, {"tanh", 20.7}};

double ceiling_for(const std::string& gpu, const std::string& group, double target) {
  for (const KernelGap& g : kKnownKernelGaps)
    if (gpu == g.gpu && group == g.group) return g.ceiling_pct;
  return target;
}

}  // namespace

TEST_SUITE("kernel_accuracy") {
  TEST_CASE("committed weights on the test set: targets, half the roofline's error, known gaps") {
    std::vector<MeasuredKernel> rows;
    for (const char* f : {"bmm.csv", "linear.csv", "vec.csv"}) {
      const std::string path = test::data_dir() + "/nvidia/kernels/test/" + f;
      auto part = parse_kernel_csv(test::read_file(path), path);
      rows.insert(rows.end(), part.begin(), part.end());
    }
    const EvalReport rep = evaluate_kernels(rows, test::dataset_devices(), Predictor::tilecast);
    REQUIRE(rep.n == std::int64_t(rows.size()));
    CHECK(rep.overall_mape_pct <=
          ceiling_for("all", "overall", 0.5 * rep.overall_roofline_mape_pct));

    std::map<std::string, EvalGroup> unseen;  // per family
    for (const EvalGroup& g : rep.groups) {
      INFO(g.gpu, " ", g.op, ": ", g.mape_pct, "% (roofline ", g.roofline_mape_pct, "%)");
      if (g.gpu == kUnseenGpu) {
        EvalGroup& f = unseen[family(g.op)];
        f.mape_pct += g.mape_pct * double(g.n);
        f.roofline_mape_pct += g.roofline_mape_pct * double(g.n);
        f.n += g.n;
        CHECK(g.mape_pct <= ceiling_for(g.gpu, g.op, 0.5 * g.roofline_mape_pct));
      } else {
        CHECK(g.mape_pct <= ceiling_for(g.gpu, g.op, kTrainingGpuTarget));
        CHECK(g.mape_pct <= ceiling_for(g.gpu, g.op, 0.5 * g.roofline_mape_pct));
      }
    }
    REQUIRE(unseen.size() == 5);
    for (auto& [fam, f] : unseen) {
      const double mape = f.mape_pct / double(f.n);
      INFO(kUnseenGpu, " ", fam, ": ", mape, "% (roofline ", f.roofline_mape_pct / double(f.n),
           "%)");
      CHECK(mape <= ceiling_for(kUnseenGpu, fam, kUnseenTargets.at(fam)));
    }
  }

  TEST_CASE("the H200's BF16 kernels (never trained on): every op at or below its ceiling") {
    const std::string run = test::repo_dir() + "/data/measured/h200/bf16-seed0";
    std::map<std::string, GpuSpec> devices;
    for (const std::string& f : test::files_in(run + "/devices", ".json")) {
      const GpuSpec g = parse_gpu_spec(test::read_file(f), f);
      devices.emplace(g.name, g);
    }
    std::vector<MeasuredKernel> rows;
    for (const std::string& path : test::files_in(run + "/kernels-bf16", ".csv")) {
      auto part = parse_kernel_csv(test::read_file(path), path, kernel_csv_dtype_from_path(path));
      rows.insert(rows.end(), part.begin(), part.end());
    }
    const EvalReport rep = evaluate_kernels(rows, devices, Predictor::tilecast);
    REQUIRE(rep.groups.size() == kH200Bf16Ceilings.size());
    for (const EvalGroup& g : rep.groups) {
      INFO(g.op << ": " << g.mape_pct << " % over " << g.n << " kernels");
      REQUIRE(kH200Bf16Ceilings.count(g.op) == 1);
      CHECK(g.mape_pct <= kH200Bf16Ceilings.at(g.op));
      CHECK(g.mape_pct < g.roofline_mape_pct);
    }
  }
}
