// `tilecast train --model ID` and `tilecast eval-kernels --model ID`: a built-in model remade by
// the recipe its manifest states, and evaluated alone, from its folder or a training run's.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/learned_models.hpp"

using namespace tilecast;
using tilecast::test::run_cli;

TEST_SUITE("model_training") {
  TEST_CASE("a recipe's placeholders and brace lists expand as a shell's would, in order") {
    const auto w = model_training_recipe("nvidia-half-gemm", "D", "O");
    // nvidia-half-gemm is written by nvidia-half's recipe
    REQUIRE(w.size() >= 8);
    CHECK(w[0] == "train-fp16");
    CHECK(w[1] == "--out");
    CHECK(w[2] == "O/kernel_weights.json");
    CHECK(w[4] == "O/tensor_gemm.json");
    CHECK(w[w.size() - 2] == "a100-80gb-sxm=D/vidur/compute/a100");
    const auto d = model_training_recipe("nvidia-half", "D", "");
    CHECK(d[2] == "core/data/models/nvidia-half/kernel_weights.json");
    CHECK(d[4] == "core/data/models/nvidia-half-gemm/tensor_gemm.json");
    const auto csvs = test::recipe_csvs("nvidia-fp32");
    REQUIRE(csvs.size() == 78);  // 15 ops x 5 GPUs, op outermost, then the 3 curated files
    CHECK(csvs[0] == "nvidia/kernels/train/linear/NVIDIA A100-PCIE-40GB.csv");
    CHECK(csvs[1] == "nvidia/kernels/train/linear/Tesla P100-PCIE-16GB.csv");
    CHECK(csvs[5] == "nvidia/kernels/train/bmm/NVIDIA A100-PCIE-40GB.csv");
    CHECK(csvs[77] == "nvidia/kernels/train/ln-curated.csv");
    CHECK_THROWS_WITH_AS(model_training_recipe("nvidia-fp64", "D", ""),
                         doctest::Contains("known: amd-fp32"), Error);
  }

  TEST_CASE("train --model: the recipe printed, run, and an unknown id listing the known") {
    const auto shown = run_cli("train --model amd-fp32-gemm --data /d --recipe");
    REQUIRE(shown.code == 0);
    CHECK(shown.output.find("train-amd-gemm\n") == 0);
    CHECK(shown.output.find("core/data/models/amd-fp32/tile_table.json\n") != std::string::npos);
    CHECK(shown.output.find("/d/neusight/amd/kernels/test/bmm/AMD Instinct MI210.csv\n") !=
          std::string::npos);
    const auto unknown = run_cli("train --model nvidia-fp64");
    CHECK(unknown.code == 1);
    CHECK(unknown.output.find("known: amd-fp32, amd-fp32-gemm") != std::string::npos);

    // The tile table is counted, not fitted (seconds): the recipe remakes the committed one.
    namespace fs = std::filesystem;
    const fs::path out = fs::temp_directory_path() / "tilecast_model_training";
    fs::remove_all(out);
    const auto run = run_cli("train --model amd-fp32 --data '" + test::data_dir() + "/..' --out '" +
                             out.string() + "' --tile-table-only");
    INFO(run.output);
    REQUIRE(run.code == 0);
    CHECK(test::read_file((out / "tile_table.json").string()) ==
          test::read_file(test::repo_dir() + "/core/data/models/amd-fp32/tile_table.json"));
    // A trainer's own flag it does not take is refused by that trainer.
    const auto bad = run_cli("train --model nvidia-half --row-reference with-launch");
    CHECK(bad.code != 0);
    CHECK(bad.output.find("row-reference") != std::string::npos);
    fs::remove_all(out);
  }

  TEST_CASE("eval-kernels --model: that model alone, on the rows it serves") {
    const std::string devices = " --devices '" + test::data_dir() + "/devices'";
    const std::string amd_gemm =
        " '" + test::data_dir() + "/amd/kernels/test/linear/AMD Instinct MI210.csv'";
    const std::string nvidia = " '" + test::data_dir() + "/nvidia/kernels/test/linear.csv'";
    const auto own = run_cli("eval-kernels --model amd-fp32-gemm --json" + devices + amd_gemm);
    INFO(own.output);
    REQUIRE(own.code == 0);
    const auto registry = run_cli("eval-kernels --json" + devices + amd_gemm);
    REQUIRE(registry.code == 0);
    // The registry's choice for AMD GEMMs is that model: the same figures.
    CHECK(own.output.substr(own.output.find('{')) == registry.output);
    // The NVIDIA net (a transfer to every vendor) forced onto the AMD rows forecasts them
    // differently.
    const auto net = run_cli("eval-kernels --model nvidia-fp32 --json" + devices + amd_gemm);
    REQUIRE(net.code == 0);
    CHECK(net.output.substr(net.output.find('{')) != registry.output);
    // A model that serves none of the rows says so; --model-dir alone is refused.
    const auto none = run_cli("eval-kernels --model nvidia-half" + devices + nvidia);
    CHECK(none.code == 1);
    CHECK(none.output.find("serve none of the rows") != std::string::npos);
    const auto dir = run_cli("eval-kernels --model-dir /tmp" + devices + nvidia);
    CHECK(dir.code == 1);
    CHECK(dir.output.find("--model-dir needs --model") != std::string::npos);
  }
}
