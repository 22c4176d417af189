// What a new user typed wrong at the CLI gets an answer in their words (issue 14): a directory
// where a file was meant, a name carrying terminal control characters, a kernel bigger than the
// GPU's memory.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_paths.hpp"

namespace fs = std::filesystem;
using tilecast::test::run_cli;

TEST_SUITE("cli_input") {
  TEST_CASE("a directory given as a GPU, model or system says it is a directory") {
    const std::string dir = fs::temp_directory_path().string();
    const auto gpu = run_cli("forecast --gpu '" + dir + "' --model gpt2 --seq 8");
    CHECK(gpu.code != 0);
    CHECK(gpu.output.find("--gpu: '" + dir + "' is a directory") != std::string::npos);
    const auto model = run_cli("forecast --gpu t4 --model '" + dir + "' --seq 8");
    CHECK(model.code != 0);
    CHECK(model.output.find("--model: '" + dir + "' is a directory") != std::string::npos);
    const auto validate = run_cli("models --validate '" + dir + "'");
    CHECK(validate.code != 0);
    CHECK(validate.output.find("is a directory") != std::string::npos);
  }

  TEST_CASE("a missing, non-regular or huge file is refused before it is read, saying which") {
    const auto missing = run_cli(
        "serve --gpu h100-sxm --model llama3-8b --prompt 8 --output 2 --qps 1 --trace "
        "/nonexistent.csv");
    CHECK(missing.code != 0);
    CHECK(missing.output.find("'/nonexistent.csv': no such file") != std::string::npos);
    const auto device = run_cli(
        "serve --gpu h100-sxm --model llama3-8b --prompt 8 --output 2 --qps 1 --trace /dev/null");
    CHECK(device.code != 0);
    CHECK(device.output.find("'/dev/null': not a regular file") != std::string::npos);
    const fs::path big = fs::temp_directory_path() / "tilecast_huge_trace.csv";
    {
      std::ofstream out(big);
      out << "arrival_ms,prompt,output\n";
    }
    fs::resize_file(big, (std::uintmax_t{256} << 20) + 1);  // sparse: no disk written
    const auto huge = run_cli(
        "serve --gpu h100-sxm --model llama3-8b --prompt 8 --output 2 "
        "--qps 1 --trace '" +
        big.string() + "'");
    fs::remove(big);
    CHECK(huge.code != 0);
    CHECK(huge.output.find("268435457 bytes; files over 256 MiB are refused") != std::string::npos);
  }

  TEST_CASE("a GPU name with an ANSI escape or a newline is refused, naming the field") {
    const fs::path p = fs::temp_directory_path() / "tilecast_escape_gpu.json";
    {
      std::ofstream out(p);
      out << R"({"name":"evil\u001b[31mred\nline","vendor":"NVIDIA","num_sm":40,"cores_per_sm":64,)"
          << R"("boost_clock_mhz":1590,"fp32_gflops":8100,"mem_gb":16,"mem_bw_gbps":320,"l2_mb":4})";
    }
    const auto r = run_cli("kernel --gpu '" + p.string() + "' --op add --dims 10,10");
    fs::remove(p);
    CHECK(r.code != 0);
    CHECK(r.output.find("field 'name' holds a control character") != std::string::npos);
    CHECK(r.output.find('\x1b') == std::string::npos);  // nothing reaches the terminal
  }

  TEST_CASE("a kernel larger than the GPU's memory is forecast with a note saying so") {
    const auto big =
        run_cli("kernel --gpu a100-80gb-sxm --op linear --dims 1,1000000000,1000000000,1000000000");
    CHECK(big.code == 0);
    CHECK(
        big.output.find(
            "do not fit in NVIDIA A100 SXM4 80GB's 85.9 GB of memory (as its driver reports it)") !=
        std::string::npos);
    const auto json = run_cli("kernel --gpu t4 --op add --dims 10,2147483648 --json");
    CHECK(json.code == 0);
    CHECK(json.output.find("do not fit") != std::string::npos);
    const auto small = run_cli("kernel --gpu a100-80gb-sxm --op linear --dims 1,4096,4096,4096");
    CHECK(small.output.find("do not fit") == std::string::npos);
  }

  TEST_CASE("forecast --precision: autocast training named, a type the GPU lacks refused") {
    const auto bf16 = run_cli(
        "forecast --gpu a100-80gb-sxm --model gpt2 --seq 64 --mode training --precision bf16");
    CHECK(bf16.code == 0);
    CHECK(bf16.output.find("bf16 mixed precision (torch.autocast)") != std::string::npos);
    const auto json = run_cli(
        "forecast --gpu a100-80gb-sxm --model gpt2 --seq 64 --mode training --precision bf16 "
        "--json");
    CHECK(json.output.find("\"precision\": \"bf16\"") != std::string::npos);
    const auto v100 =
        run_cli("forecast --gpu v100-sxm --model gpt2 --seq 64 --mode training --precision bf16");
    CHECK(v100.code != 0);
    CHECK(v100.output.find("its precisions: fp32, fp16") != std::string::npos);
    const auto int8 = run_cli("forecast --gpu h100-sxm --model gpt2 --seq 64 --precision int8");
    CHECK(int8.code != 0);
    CHECK(int8.output.find("--precision: allowed fp32, fp16, bf16") != std::string::npos);
  }

  TEST_CASE("forecast --master-weights: the API reads the word; the text shows its step") {
    const std::string base = "forecast --gpu h200 --model gpt2 --seq 64 --mode training";
    const auto half = run_cli(base + " --precision bf16 --master-weights half");
    const auto autocast = run_cli(base + " --precision bf16");
    CHECK(half.code == 0);
    CHECK(half.output != autocast.output);  // the pure-BF16 step, its memory included
    CHECK(run_cli(base + " --master-weights fp32").code == 0);  // FP32: the word changes nothing
    CHECK(run_cli(base + " --master-weights fp32").output == run_cli(base).output);
    const auto bad = run_cli(base + " --precision bf16 --master-weights nope");
    CHECK(bad.code != 0);
    CHECK(bad.output.find("'nope' is not master weights; allowed: fp32, half") !=
          std::string::npos);
    const auto fp32_half = run_cli(base + " --master-weights half");
    CHECK(fp32_half.code != 0);
    CHECK(fp32_half.output.find("applies to mode training at precision fp16 or bf16") !=
          std::string::npos);
  }
  TEST_CASE("capacity takes serve's quantization flags: weights and KV cache reach the plan") {
    const std::string base =
        "capacity --model llama3-8b --gpu h100-sxm --qps 2 --slo-ttft-ms 800 --slo-tpot-ms 80 "
        "--prompt 256 --output 32 --requests 40 --max-gpus 2 --json";
    const auto int4 = run_cli(base + " --weights int4 --kv-cache fp8");
    CHECK(int4.code == 0);
    CHECK(int4.output.find("\"weights\": \"int4\"") != std::string::npos);
    CHECK(int4.output.find("\"kv_cache\": \"fp8\"") != std::string::npos);
    const auto bad = run_cli(base + " --weights int3");
    CHECK(bad.code != 0);
    CHECK(bad.output.find("'int3' is not a weight format; allowed: native, int8, int4") !=
          std::string::npos);
  }

  TEST_CASE("serve: a simulation flag without arrivals names itself and the arrival flags") {
    const std::string base = "serve --gpu h100-sxm --model llama3-8b --prompt 64 --output 8";
    const auto one = run_cli(base + " --seed 3");
    CHECK(one.code != 0);
    CHECK(one.output.find("--seed shapes a simulated request stream; give one of --qps, "
                          "--concurrency or --trace") != std::string::npos);
    const auto two = run_cli(base + " --max-seqs 8 --scheduler no-evict");
    CHECK(two.code != 0);
    CHECK(two.output.find("--max-seqs, --scheduler shape a simulated request stream") !=
          std::string::npos);
    // the same flags with an arrival flag simulate; capacity takes them and refuses --concurrency
    CHECK(run_cli(base + " --seed 3 --concurrency 2 --requests 4").code == 0);
    const auto capacity = run_cli(
        "capacity --model llama3-8b --gpu h100-sxm --qps 2 --slo-ttft-ms 800 --slo-tpot-ms 80 "
        "--prompt 64 --output 8 --concurrency 2");
    CHECK(capacity.code != 0);
    CHECK(capacity.output.find("--concurrency") != std::string::npos);
  }

  TEST_CASE("a plan with nothing to rank says why instead of printing empty tables") {
    // 7 GPUs: no tp x pp split divides Llama 3 8B's heads and layers
    const auto none =
        run_cli("plan --model llama3-8b --system dgx-h100 --global-batch 64 --gpus 7");
    CHECK(none.code == 0);
    CHECK(none.output.find("nothing to rank: of 1152 configurations 1152 do not divide") !=
          std::string::npos);
    CHECK(none.output.find("fastest step") == std::string::npos);
    // the megatron engine: a 70B model's batch of 7 fits in no layout of 8 H100s
    const auto big = run_cli(
        "plan --model llama3-70b --system dgx-h100 --global-batch 7 --seq 4096 --gpus 8 "
        "--engine megatron");
    CHECK(big.code == 0);
    CHECK(big.output.find("do not fit in memory") != std::string::npos);
    CHECK(big.output.find("fastest step") == std::string::npos);
    const auto some =
        run_cli("plan --model llama3-8b --system dgx-h100 --global-batch 64 --gpus 8");
    CHECK(some.output.find("nothing to rank") == std::string::npos);
    CHECK(some.output.find("fastest step") != std::string::npos);
  }

  TEST_CASE("eval-ops refuses a precision vidur's half-precision timings cannot be read at") {
    // refused before any file is read: the folder need not exist
    const auto fp32 = run_cli("eval-ops --gpu a100-80gb-sxm --vidur /nonexistent --precision fp32");
    CHECK(fp32.code != 0);
    CHECK(fp32.output.find("--precision fp32: vidur's operator timings are half-precision "
                           "kernels; allowed: fp16, bf16") != std::string::npos);
  }

  TEST_CASE("comm --bytes takes a size in any of its units, any case; anything else lists them") {
    const auto mib = run_cli("comm --system dgx-h100 --bytes 64MiB --json");
    const auto lower = run_cli("comm --system dgx-h100 --bytes 64mib --json");
    const auto plain = run_cli("comm --system dgx-h100 --bytes 67108864 --json");
    REQUIRE(mib.code == 0);
    CHECK(lower.output == mib.output);
    CHECK(plain.output == mib.output);
    CHECK(run_cli("comm --system dgx-h100 --bytes 1GB --json").output !=
          run_cli("comm --system dgx-h100 --bytes 1GiB --json").output);
    for (const char* bad : {"5XiB", "-5MiB", "0", "nan", "1e400", "MiB"}) {
      const auto r = run_cli(std::string("comm --system dgx-h100 --bytes ") + bad);
      CHECK(r.code != 0);
      CHECK(r.output.find(std::string("--bytes: '") + bad +
                          "' is not a size: a number above 0, with no unit or one of B, KiB, MiB, "
                          "GiB, KB, MB, GB") != std::string::npos);
    }
  }

  TEST_CASE("COMMAND --help and help COMMAND print that command's usage; an unknown one is named") {
    for (const char* cmd : {"serve --help", "serve --gpu h100-sxm -h", "help serve"}) {
      const auto r = run_cli(cmd);
      CHECK(r.code == 0);
      CHECK(r.output.find("usage:\n  tilecast serve") == 0);
      CHECK(r.output.find("--qps R") != std::string::npos);
      CHECK(r.output.find("tilecast forecast") == std::string::npos);  // that command's alone
    }
    const auto unknown = run_cli("help servee");
    CHECK(unknown.code == 2);
    CHECK(unknown.output.find("unknown command 'servee'; did you mean serve?") !=
          std::string::npos);
    const auto flag = run_cli("serve --gpu h100-sxm --promt 8");
    CHECK(flag.code != 0);
    CHECK(flag.output.find("unknown flag --promt (did you mean --prompt?); allowed:") !=
          std::string::npos);
    const auto all = run_cli("help");
    CHECK(all.code == 0);
    CHECK(all.output.find("tilecast forecast") != std::string::npos);
    CHECK(all.output.find("tilecast serve") != std::string::npos);
  }
}
