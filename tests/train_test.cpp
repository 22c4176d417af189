// The trainer: a short run whose loss falls, bit-for-bit determinism, the held-out
// GPU never used, and the committed weights current with the data and the trainer config.
#include "tilecast/train.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "learned/weights.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"

using namespace tilecast;

namespace {}  // namespace

TEST_SUITE("train") {
  TEST_CASE("a short run: loss falls in every family, and the same seed gives the same bytes") {
    const std::vector<TrainText> csvs = {
        test::dataset_file("nvidia/kernels/train/linear/Tesla T4.csv"),
        test::dataset_file("nvidia/kernels/train/add/Tesla T4.csv"),
        test::dataset_file("nvidia/kernels/train/softmax/Tesla T4.csv"),
        test::dataset_file("nvidia/kernels/train/ln/Tesla T4.csv")};
    TrainConfig cfg;
    cfg.seed = 7;
    cfg.epochs = 8;
    cfg.max_rows = 400;
    int progress_calls = 0;
    const TrainResult a = train_kernel_models(csvs, test::dataset_device_files(), cfg, "test",
                                              [&](const TrainProgress&) { ++progress_calls; });
    CHECK(progress_calls == 4 * 8);
    REQUIRE(a.losses.size() == 4);
    for (const auto& [family, loss] : a.losses) {
      INFO(family, ": ", loss.first, " -> ", loss.last);
      CHECK(loss.rows == 400);
      CHECK(loss.last < loss.first);
    }
    // Softmax and layer norm learn against the element-wise model's streaming time, which is
    // trained first in the same run; layer norm's covers its re-read traffic.
    const auto w = nlohmann::json::parse(a.weights_json);
    CHECK(w["families"]["softmax"]["tile_time"] == "streaming");
    CHECK(w["families"]["layernorm"]["tile_time"] == "streaming traffic");
    CHECK(!w["families"]["gemm"].contains("tile_time"));
    const TrainResult b = train_kernel_models(csvs, test::dataset_device_files(), cfg, "test");
    CHECK(a.weights_json == b.weights_json);
    CHECK(a.tile_table_json == b.tile_table_json);
    cfg.seed = 8;
    const TrainResult c = train_kernel_models(csvs, test::dataset_device_files(), cfg, "test");
    CHECK(a.weights_json != c.weights_json);

    // The row reference without the element-wise launch (the AMD models' choice): recorded in
    // each row family and in the config line, the element-wise and GEMM nets untouched.
    cfg.seed = 7;
    cfg.row_reference_without_launch = true;
    const TrainResult d = train_kernel_models(csvs, test::dataset_device_files(), cfg, "test");
    const auto wd = nlohmann::json::parse(d.weights_json);
    CHECK(wd["families"]["softmax"]["tile_time"] == "streaming without launch");
    CHECK(wd["families"]["layernorm"]["tile_time"] == "streaming traffic without launch");
    CHECK(wd["families"]["elementwise"] == w["families"]["elementwise"]);
    CHECK(wd["families"]["softmax"]["steady"] != w["families"]["softmax"]["steady"]);
    CHECK(wd["config"].get<std::string>().ends_with(" row_reference=without_launch"));
    CHECK(parse_family_model(wd["families"]["softmax"].dump(), "w.json", OpFamily::softmax)
              .reference_without_launch);
    CHECK_FALSE(parse_family_model(w["families"]["softmax"].dump(), "w.json", OpFamily::softmax)
                    .reference_without_launch);
  }

  TEST_CASE("a family's tile time is the reference it forecasts against, streaming only for rows") {
    const auto weights = nlohmann::json::parse(
        test::read_file(test::repo_dir() + "/core/data/models/nvidia-fp32/kernel_weights.json"));
    auto softmax = weights["families"]["softmax"];
    CHECK(parse_family_model(softmax.dump(), "w.json", OpFamily::softmax).streaming_tiles);
    softmax["tile_time"] = "dram";
    try {
      parse_family_model(softmax.dump(), "w.json", OpFamily::softmax);
      FAIL("accepted tile_time 'dram'");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("tile_time") != std::string::npos);
    }
    auto gemm = weights["families"]["gemm"];
    gemm["tile_time"] = "streaming";
    CHECK_THROWS_AS(parse_family_model(gemm.dump(), "w.json", OpFamily::gemm), Error);
    // Layer norm learns against its traffic's streaming time, softmax against B x H's: weights
    // learned against the other reference (another version's) are refused, not misread.
    auto ln = weights["families"]["layernorm"];
    CHECK(parse_family_model(ln.dump(), "w.json", OpFamily::layernorm).streaming_tiles);
    ln["tile_time"] = "streaming";
    CHECK_THROWS_WITH_AS(parse_family_model(ln.dump(), "w.json", OpFamily::layernorm),
                         doctest::Contains("retrain"), Error);
    softmax["tile_time"] = "streaming traffic";
    CHECK_THROWS_WITH_AS(parse_family_model(softmax.dump(), "w.json", OpFamily::softmax),
                         doctest::Contains("w.json"), Error);
    softmax["tile_time"] = "streaming traffic without launch";  // still layer norm's reference
    CHECK_THROWS_AS(parse_family_model(softmax.dump(), "w.json", OpFamily::softmax), Error);
    gemm["tile_time"] = "roofline without launch";
    CHECK_THROWS_WITH_AS(parse_family_model(gemm.dump(), "w.json", OpFamily::gemm),
                         doctest::Contains("streaming only"), Error);
  }

  TEST_CASE("rows of the held-out GPU are never used; bad rows and unknown devices are errors") {
    const std::string head = "OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,B,H\n";
    std::string body;
    for (int i = 1; i <= 40; ++i)
      body += "add," + std::to_string(0.01 * i) + ",Tesla T4,k,1,1,1," + std::to_string(i) +
              ",1024\nadd,0.5,NVIDIA A100 80GB PCIe,k,1,1,1," + std::to_string(i) + ",1024\n";
    TrainConfig cfg;
    cfg.epochs = 2;
    const TrainResult r =
        train_kernel_models({{"mem.csv", head + body}}, test::dataset_device_files(), cfg, "t");
    CHECK(r.rows_used == 40);
    CHECK(r.rows_held_out == 40);
    CHECK(nlohmann::json::parse(r.weights_json)["trained_on"] ==
          nlohmann::json::array({"Tesla T4"}));
    CHECK_THROWS_WITH_AS(
        train_kernel_models({{"bad.csv", head + "add,zero,Tesla T4,k,1,1,1,2,4\n"}},
                            test::dataset_device_files(), cfg, "t"),
        doctest::Contains("bad.csv:2"), Error);
    CHECK_THROWS_WITH_AS(train_kernel_models({{"dev.csv", head + "add,1,Tesla X9,k,1,1,1,2,4\n"}},
                                             test::dataset_device_files(), cfg, "t"),
                         doctest::Contains("Device 'Tesla X9'"), Error);
  }

  TEST_CASE("a family's overhead cap is the largest of its GPUs' fastest measured latencies") {
    // T4's fastest add takes 0.02 ms, V100's 0.05 ms: a kernel's fixed cost is at most its
    // GPU's fastest measured kernel, so the family's overhead is capped at 0.05 ms.
    const std::string head = "OPName,Latency,Device,Kernel Name,Grid x,Grid y,Grid z,B,H\n";
    std::string body;
    for (int i = 1; i <= 20; ++i)
      body += "add," + std::to_string(0.02 * i) + ",Tesla T4,k,1,1,1," + std::to_string(i) +
              ",4096\nadd," + std::to_string(0.05 + 0.01 * i) + ",Tesla V100-PCIE-32GB,k,1,1,1," +
              std::to_string(i) + ",4096\nadd,0.05,Tesla V100-PCIE-32GB,k,1,1,1,1,8\n";
    TrainConfig cfg;
    cfg.epochs = 2;
    const TrainResult r =
        train_kernel_models({{"mem.csv", head + body}}, test::dataset_device_files(), cfg, "t");
    const auto w = nlohmann::json::parse(r.weights_json);
    CHECK(w["families"]["elementwise"]["overhead_max_ms"].get<double>() == doctest::Approx(0.05));
    const FamilyModel m =
        parse_family_model(w["families"]["elementwise"].dump(), "w", OpFamily::elementwise);
    CHECK(m.overhead_max_ms == doctest::Approx(0.05));
  }

  TEST_CASE("the committed weights are current: inputs, trainer config and hash") {
    const auto w = nlohmann::json::parse(
        test::read_file(test::repo_dir() + "/core/data/models/nvidia-fp32/kernel_weights.json"));
    // What its recipe (core/data/models/nvidia-fp32/manifest.json, "train") reads.
    const std::vector<std::string> expected = test::recipe_csvs("nvidia-fp32");
    REQUIRE(expected.size() == 78);
    REQUIRE(w.at("inputs").get<std::vector<std::string>>() == expected);

    std::vector<TrainText> csvs;
    for (const auto& rel : expected) csvs.push_back(test::dataset_file(rel));
    TrainConfig cfg;
    cfg.seed = w.at("seed").get<std::uint64_t>();
    cfg.epochs = w.at("epochs").get<int>();
    cfg.max_rows = w.at("max_rows").get<std::int64_t>();
    CHECK(cfg.epochs == 0);
    CHECK(cfg.max_rows == 0);
    CHECK(w.at("config").get<std::string>() == train_config_text(cfg));
    char hex[20];
    std::snprintf(
        hex, sizeof hex, "%016llx",
        static_cast<unsigned long long>(training_hash(csvs, test::dataset_device_files(), cfg)));
    INFO("stale core/data/models/nvidia-fp32/kernel_weights.json: rerun scripts/train.sh");
    CHECK(w.at("hash").get<std::string>() == std::string("fnv1a64:") + hex);
    CHECK(w.at("rows_held_out").get<std::int64_t>() == 0);
  }

  TEST_CASE("the committed tile table is what the training rows give") {
    const auto w = nlohmann::json::parse(
        test::read_file(test::repo_dir() + "/core/data/models/nvidia-fp32/kernel_weights.json"));
    std::vector<TrainText> csvs;
    for (const auto& rel : w.at("inputs").get<std::vector<std::string>>())
      if (rel.find("/linear/") != std::string::npos || rel.find("/bmm/") != std::string::npos)
        csvs.push_back(test::dataset_file(rel));
    REQUIRE(csvs.size() == 10);
    INFO(
        "stale core/data/models/nvidia-fp32/tile_table.json: rerun scripts/train.sh build "
        "--tile-table-only");
    CHECK(build_tile_table(csvs, test::dataset_device_files(), TrainConfig{}) + "\n" ==
          test::read_file(test::repo_dir() + "/core/data/models/nvidia-fp32/tile_table.json"));
  }

  TEST_CASE("train --devices twice: a measured GPU's folder joins the dataset's") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "tilecast_train_devices";
    fs::remove_all(dir);
    fs::create_directories(dir / "kit" / "devices");
    fs::create_directories(dir / "clash");
    const auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
    // A GPU the dataset lacks, as the measurement kit writes it, two GEMM rows of it and one of
    // a dataset GPU.
    write(
        dir / "kit" / "devices" / "Lab_GPU.json",
        R"({"Device": "Lab GPU", "Vendor": "NVIDIA", "Dev_Mem": 24, "Mem_Bw": 900, "Num_Sm": 60, "Core_Per_SM": 128,
              "Freq": 1800, "SingleFLOPs": 27648, "L2Cache": 48})");
    write(dir / "kit" / "linear.csv",
          "OPName,Latency,Device,Kernel Name,Warps per SM,Blocks per SM,Grid x,Grid y,Grid z,"
          "Block x,Block y,Block z,B,M,N,K\n"
          "linear,0.5,Lab GPU,sm80_xmma_gemm_f32f32_tilesize128x64x8,8,2,16,8,1,128,1,1,1,1024,"
          "1024,1024\n"
          "linear,1.9,Lab GPU,sm80_xmma_gemm_f32f32_tilesize128x128x8,8,2,16,16,1,128,1,1,1,2048,"
          "2048,1024\n"
          "linear,0.9,Tesla T4,volta_sgemm_128x64_tn,8,2,16,8,1,256,1,1,1,1024,1024,1024\n");
    const std::string devices = test::data_dir() + "/devices";
    const std::string out = (dir / "out").string();
    const auto ok = test::run_cli(
        "train --devices '" + devices + "' --devices '" + (dir / "kit" / "devices").string() +
        "' --out '" + out + "' --tile-table-only '" + (dir / "kit" / "linear.csv").string() + "'");
    CHECK_MESSAGE(ok.code == 0, ok.output);
    const auto table = nlohmann::json::parse(test::read_file(out + "/tile_table.json"));
    REQUIRE(table.at("gpus").size() == 2);  // both folders' GPUs
    CHECK(table.at("gpus")[0].at("name") == "Lab GPU");
    CHECK(table.at("gpus")[1].at("name") == "Tesla T4");
    // Without its folder the GPU is unknown; a second, different file for a dataset GPU is refused.
    const auto unknown =
        test::run_cli("train --devices '" + devices + "' --out '" + out + "' --tile-table-only '" +
                      (dir / "kit" / "linear.csv").string() + "'");
    CHECK(unknown.code != 0);
    CHECK(unknown.output.find("Lab GPU") != std::string::npos);
    write(dir / "clash" / "Tesla_T4.json",
          R"({"Device": "Tesla T4", "Dev_Mem": 16, "Mem_Bw": 300, "Num_Sm": 40, "Core_Per_SM": 64,
              "Freq": 1590, "SingleFLOPs": 8141, "L2Cache": 4})");
    const auto clash = test::run_cli(
        "train --devices '" + devices + "' --devices '" + (dir / "clash").string() + "' --out '" +
        out + "' --tile-table-only '" + (dir / "kit" / "linear.csv").string() + "'");
    CHECK(clash.code != 0);
    CHECK(clash.output.find("Device 'Tesla T4' is also described, differently, by") !=
          std::string::npos);
    fs::remove_all(dir);
  }
}
