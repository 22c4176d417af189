// `--weights DIR`: forecasts from the files `tilecast train --out DIR` writes; `train` takes
// several GPUs to hold out (repeated or comma-separated).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_paths.hpp"

using namespace tilecast;

TEST_SUITE("weights-flag") {
  TEST_CASE("--weights DIR forecasts with the weights `tilecast train --out DIR` wrote") {
    const std::string dir = (std::filesystem::temp_directory_path() /
                             ("tilecast_weights_test_" + std::to_string(::getpid())))
                                .string();
    const std::string train_dir = test::data_dir() + "/nvidia/kernels/train";
    const test::CliRun trained = test::run_cli(
        "train --devices '" + test::data_dir() + "/devices' --out '" + dir +
        "' --epochs 2 --max-rows 200 --hold-out 'Tesla P4,Tesla V100-PCIE-32GB' --hold-out "
        "'Tesla P100-PCIE-16GB' '" +
        train_dir + "/linear/Tesla T4.csv' '" + train_dir + "/linear/Tesla P4.csv' '" + train_dir +
        "/add/Tesla T4.csv' '" + train_dir + "/softmax/Tesla T4.csv' '" + train_dir +
        "/ln/Tesla T4.csv' '" + train_dir + "/linear/Tesla P100-PCIE-16GB.csv'");
    INFO(trained.output);
    REQUIRE(trained.code == 0);
    const auto w = nlohmann::json::parse(test::read_file(dir + "/kernel_weights.json"));
    CHECK(w.at("trained_on") == nlohmann::json::array({"Tesla T4"}));
    CHECK(w.at("held_out_devices") ==
          nlohmann::json::array({"NVIDIA A100 80GB PCIe", "Tesla P4", "Tesla V100-PCIE-32GB",
                                 "Tesla P100-PCIE-16GB"}));
    CHECK(w.at("rows_held_out").get<int>() > 0);
    const std::string kernel = "kernel --gpu t4 --op linear --dims 1,1024,1024,1024 --json";
    const auto own =
        nlohmann::json::parse(test::run_cli(kernel + " --weights '" + dir + "'").output);
    const auto embedded = nlohmann::json::parse(test::run_cli(kernel).output);
    CHECK(own.at("latency_ms") != embedded.at("latency_ms"));
    const std::string model = "forecast --gpu t4 --model gpt2 --seq 128 --json";
    const auto own_m =
        nlohmann::json::parse(test::run_cli(model + " --weights '" + dir + "'").output);
    const auto emb_m = nlohmann::json::parse(test::run_cli(model).output);
    CHECK(own_m.at("latency_ms") != emb_m.at("latency_ms"));
    const test::CliRun missing = test::run_cli(kernel + " --weights /nonexistent");
    CHECK(missing.code != 0);
    CHECK(missing.output.find("/nonexistent/kernel_weights.json") != std::string::npos);
    std::filesystem::remove_all(dir);
  }
}
