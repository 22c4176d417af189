// The embedded files read back as the repository's files, byte for byte; the packed trained
// weights (core/cmake/embed_files.cmake, common/packed_numbers.cpp) decode to the same doubles
// as their JSON text; the packer round-trips awkward numbers and bad packings are errors.
#include "common/embedded_data.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/packed_numbers.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"

namespace {

using tilecast::test::read_file;
using tilecast::test::repo_dir;

// Every number of `a` and `b` has the same bits (and the trees the same shape).
void require_same_bits(const nlohmann::json& a, const nlohmann::json& b, const std::string& at) {
  REQUIRE_MESSAGE(a.type() == b.type(), at);
  if (a.is_object()) {
    REQUIRE_MESSAGE(a.size() == b.size(), at);
    for (auto it = a.begin(); it != a.end(); ++it) {
      REQUIRE_MESSAGE(b.contains(it.key()), (at + "/" + it.key()));
      require_same_bits(*it, b.at(it.key()), at + "/" + it.key());
    }
  } else if (a.is_array()) {
    REQUIRE_MESSAGE(a.size() == b.size(), at);
    for (std::size_t i = 0; i < a.size(); ++i)
      require_same_bits(a[i], b[i], at + "[" + std::to_string(i) + "]");
  } else if (a.is_number_float()) {
    REQUIRE_MESSAGE(std::bit_cast<std::uint64_t>(a.get<double>()) ==
                        std::bit_cast<std::uint64_t>(b.get<double>()),
                    at);
  } else {
    REQUIRE_MESSAGE(a == b, at);
  }
}

// What embed_files.cmake packs `text` to, as bytes (it writes hex text in PACK_ONE mode).
std::string cmake_pack(const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tilecast_pack_test";
  fs::create_directories(dir);
  const fs::path in = dir / "in.json", out = dir / "out.hex";
  std::ofstream(in, std::ios::binary) << text;
  const auto run =
      tilecast::test::run_shell("cmake -DPACK_ONE='" + in.string() + "' -DOUT='" + out.string() +
                                "' -P '" + repo_dir() + "/core/cmake/embed_files.cmake'");
  REQUIRE_MESSAGE(run.code == 0, run.output);
  const std::string hex = read_file(out.string());
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

}  // namespace

TEST_SUITE("embedded data") {
  TEST_CASE("every embedded file reads back as the repository's file, byte for byte") {
    namespace e = tilecast::embedded;
    REQUIRE(e::kFileCount > 50);
    int packed = 0;
    for (std::size_t k = 0; k < e::kFileCount; ++k) {
      const std::string path(e::kFiles[k].path);
      CHECK_MESSAGE(e::find(path) == read_file(repo_dir() + "/" + path), path);
      packed += e::kFiles[k].packed;
    }
    CHECK(packed == 3);  // the NVIDIA, AMD and FP16 weights
  }

  TEST_CASE("the packed weights are smaller and decode to the JSON's doubles bit for bit") {
    namespace e = tilecast::embedded;
    for (const char* path : {"core/data/models/nvidia-fp32/kernel_weights.json",
                             "core/data/models/amd-fp32/kernel_weights.json",
                             "core/data/models/nvidia-half/kernel_weights.json"}) {
      CAPTURE(path);
      const e::File* file = nullptr;
      for (std::size_t k = 0; k < e::kFileCount; ++k)
        if (e::kFiles[k].path == path) file = &e::kFiles[k];
      REQUIRE(file != nullptr);
      REQUIRE(file->packed);
      const std::string source = read_file(repo_dir() + "/" + path);
      CHECK(file->data.size() < source.size() * 2 / 3);
      require_same_bits(nlohmann::json::parse(source), nlohmann::json::parse(e::find(path)), path);
    }
  }

  TEST_CASE("the packer round-trips awkward numbers and text") {
    const std::string text =
        R"({"a": [-0.07267357, 0.0, -0.0, 12.5, 100.25, 1.5e-05, -2.25E+10, 7.0e3, 0.000001],)"
        R"( "long": [0.33186330000000003, 1234567890.12345678901, -98765.4321098765432],)"
        R"( "s": "lr=0.002 v1.2.3 -0.5", "i": [1, -2, 300], "nested": {"x": 9.999999}})"
        "\n";
    const std::string packed = cmake_pack(text);
    CHECK(tilecast::embedded::unpack_numbers(packed, "test") == text);
    // Text without numbers, and the empty file.
    for (const std::string& plain : {std::string(R"({"a": [1, 2], "b": "c"})"), std::string()})
      CHECK(tilecast::embedded::unpack_numbers(cmake_pack(plain), "test") == plain);
  }

  TEST_CASE("a malformed packing is an error naming the file, never a crash") {
    const std::string good = cmake_pack(R"({"w": [0.125, -3.5, 0.0625]})");
    REQUIRE(tilecast::embedded::unpack_numbers(good, "x") == R"({"w": [0.125, -3.5, 0.0625]})");
    // Every truncation, one extra byte, and every single-byte corruption either decodes or
    // throws Error naming the file.
    for (std::size_t n = 0; n < good.size(); ++n)
      CHECK_THROWS_WITH_AS(tilecast::embedded::unpack_numbers(good.substr(0, n), "x.json"),
                           doctest::Contains("'x.json'"), tilecast::Error);
    CHECK_THROWS_AS(tilecast::embedded::unpack_numbers(good + "z", "x.json"), tilecast::Error);
    for (std::size_t i = 0; i < good.size(); ++i)
      for (int v : {0x00, 0x01, 0x7f, 0xff}) {
        std::string bad = good;
        bad[i] = static_cast<char>(v);
        try {
          (void)tilecast::embedded::unpack_numbers(bad, "x.json");
        } catch (const tilecast::Error& err) {
          CHECK(std::string(err.what()).find("'x.json'") != std::string::npos);
        }
      }
  }
}
