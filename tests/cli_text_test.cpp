// The CLI's text views print the API's answer (docs/layout.md): each forecast command's text
// states the figures its --json answer holds, so the two cannot drift apart again (the text
// `tilecast forecast` once rebuilt its own graph and missed the GPU's grouped GEMM kernel).
#include <doctest/doctest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "test_paths.hpp"

using tilecast::test::run_cli;

namespace cli_text_test {  // named: the unity build joins test files

// The text of `args` and its --json answer; both must succeed.
struct Views {
  std::string text;
  nlohmann::json answer;
};

Views views(const std::string& args) {
  const auto text = run_cli(args);
  const auto json = run_cli(args + " --json");
  REQUIRE(text.code == 0);
  REQUIRE(json.code == 0);
  return {text.output, nlohmann::json::parse(json.output)};
}

// `value` printed with the printf format the text view uses.
std::string printed(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

TEST_SUITE("cli_text") {
  TEST_CASE("forecast: latency, band, kernels and every caveat of the answer") {
    const Views v =
        views("forecast --gpu h100-sxm --model llama3-8b --seq 256 --mode decode --precision bf16");
    CHECK(v.text.find("latency      " + printed("%10.3f", v.answer.at("latency_ms"))) !=
          std::string::npos);
    CHECK(v.text.find(printed("%.3f", v.answer.at("band_low_ms"))) != std::string::npos);
    CHECK(v.text.find("isolated latencies sum to " +
                      printed("%.3f", v.answer.at("kernel_sum_ms"))) != std::string::npos);
    REQUIRE(!v.answer.at("caveats").empty());
    for (const auto& c : v.answer.at("caveats"))
      CHECK(v.text.find("note: " + c.get<std::string>()) != std::string::npos);
    CHECK(v.text.find("memory (one GPU): " + printed("%.2f", v.answer["memory"].at("total_gb"))) !=
          std::string::npos);
  }

  TEST_CASE("serve: the static batch's times and caveats") {
    const Views v =
        views("serve --gpu a100-80gb-sxm --model llama2-13b --prompt 512 --output 64 --batch 8");
    CHECK(v.text.find("prefill (time to first token) " +
                      printed("%10.3f", v.answer.at("prefill_ms"))) != std::string::npos);
    CHECK(v.text.find("request latency               " +
                      printed("%10.3f", v.answer.at("total_ms"))) != std::string::npos);
    for (const auto& c : v.answer.at("caveats"))
      CHECK(v.text.find("note: " + c.get<std::string>()) != std::string::npos);
  }

  TEST_CASE("gpus: each GPU's memory, as its datasheet says and as its driver reports it") {
    const auto text = run_cli("gpus");
    REQUIRE(text.code == 0);
    CHECK(text.output.find("mem GB  driver GB") != std::string::npos);
    // the H100's "80GB" and nvidia-smi's 81559 MiB; the L40S's 48 GB of GDDR6 with ECC
    const auto row = [&](const std::string& id) {
      const auto at = text.output.find("\n" + id + " ");
      REQUIRE(at != std::string::npos);
      return text.output.substr(at + 1, text.output.find('\n', at + 1) - at - 1);
    };
    CHECK(row("h100-sxm").find("      80       85.5 ") != std::string::npos);
    CHECK(row("l40s").find("      48       48.3 ") != std::string::npos);
    // the columns line up whatever a name's length (the RTX PRO 6000's is the longest)
    CHECK(row("rtx-pro-6000").size() == row("h100-sxm").size());
    CHECK(row("rtx-pro-6000").size() == text.output.find('\n'));  // the header line
  }

  TEST_CASE("kernel: latency, roofline and caveats") {
    const Views v = views("kernel --gpu l4 --op softmax --dims 4096,1024");
    CHECK(v.text.find("latency     " + printed("%.6g", v.answer.at("latency_ms"))) !=
          std::string::npos);
    CHECK(v.text.find("roofline    " + printed("%.6g", v.answer.at("roofline_ms"))) !=
          std::string::npos);
    for (const auto& c : v.answer.at("caveats"))
      CHECK(v.text.find("note: " + c.get<std::string>()) != std::string::npos);
  }
}

}  // namespace cli_text_test
