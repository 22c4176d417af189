// NCCL's low-latency protocols in the comm model (issue 30 item 3, docs/comm.md "Small
// messages"): a decode step's all-reduce of a few KB runs on LL at NCCL's tuning-model latency
// plus the calibrated launch cost; large messages stay on the calibrated Simple curve; the
// smallest Vidur all-reduces are closer than with Simple alone.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/comm_eval.hpp"
#include "tilecast/error.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

std::vector<CommRow> vidur_dgx_all_reduce() {
  const std::string path = std::filesystem::path(test::data_dir()).parent_path().string() +
                           "/vidur/network/a100_dgx/all_reduce.csv";
  if (!test::file_exists(path)) return {};
  auto rows = parse_vidur_comm_csv(test::read_file(path), "a100_dgx", path);
  mark_held_out_sizes(rows);
  return rows;
}

CommCalibration simple_only() {
  CommCalibration c = default_comm_calibration();
  for (auto& [key, curve] : c.curves) curve.launch_us = -1;
  return c;
}

CollectiveForecast all_reduce(double bytes, int gpus, int per_node = 0,
                              const CommCalibration& cal = default_comm_calibration()) {
  CollectiveRequest r;
  r.bytes = bytes;
  r.gpus = gpus;
  r.gpus_per_node = per_node;
  return forecast_collective(*lookup_system("dgx-a100"), r, cal);
}

double median_small_error_pct(const CommReport& report, int gpus) {
  for (const auto& g : report.groups)
    if (g.node == "a100_dgx" && g.collective == "all_reduce" && g.nodes == 1 && g.gpus == gpus)
      return g.median_abs_error_pct_le_64kib;
  FAIL("no a100_dgx all_reduce group on " << gpus << " GPUs");
  return 0;
}

}  // namespace

TEST_SUITE("comm_protocol") {
  TEST_CASE("a decode-sized all-reduce on one node runs on LL at NCCL's latency + launch") {
    const double launch_us = default_comm_calibration()
                                 .curves.at({LinkClass::kNvswitch, CommFamily::kCollective})
                                 .launch_us;
    REQUIRE(launch_us > 0);
    const CollectiveForecast f = all_reduce(10240, 8);
    CHECK(f.protocol == CommProtocol::kLl);
    // NCCL ring LL: base 3.6 us + 2 (n - 1) hops x 0.47 us over NVLink
    CHECK(f.latency_ms * 1e3 == doctest::Approx(launch_us + 3.6 + 14 * 0.47).epsilon(1e-9));
    CHECK(f.time_ms < all_reduce(10240, 8, 0, simple_only()).time_ms);
    // more GPUs, more hops
    CHECK(all_reduce(10240, 2).time_ms < all_reduce(10240, 4).time_ms);
    CHECK(all_reduce(10240, 4).time_ms < f.time_ms);
  }

  TEST_CASE("large messages and multi-node collectives keep the calibrated Simple curve") {
    for (int gpus : {2, 4, 8}) {
      CAPTURE(gpus);
      const CollectiveForecast big = all_reduce(16.0 * 1024 * 1024, gpus);
      CHECK(big.protocol == CommProtocol::kSimple);
      CHECK(big.time_ms == all_reduce(16.0 * 1024 * 1024, gpus, 0, simple_only()).time_ms);
    }
    const CollectiveForecast two_nodes = all_reduce(10240, 16, 8);
    CHECK(two_nodes.protocol == CommProtocol::kSimple);
    CHECK(two_nodes.time_ms == all_reduce(10240, 16, 8, simple_only()).time_ms);
    // send/recv has no LL pricing in NCCL's tuning model
    CollectiveRequest p2p;
    p2p.collective = Collective::kSendRecv;
    p2p.bytes = 4096;
    CHECK(forecast_collective(*lookup_system("dgx-a100"), p2p).protocol == CommProtocol::kSimple);
  }

  TEST_CASE("Vidur's smallest all-reduces (<= 64 KiB): closer than Simple alone") {
    const auto rows = vidur_dgx_all_reduce();
    REQUIRE_MESSAGE(!rows.empty(), "no Vidur network data beside " << test::data_dir());
    const CommReport with = evaluate_comm(rows, default_comm_calibration());
    const CommReport without = evaluate_comm(rows, simple_only());
    // Simple alone: 126% (4 GPUs) and 66% (8 GPUs); with LL: 52% and 12%
    CHECK(median_small_error_pct(with, 8) <= 20.0);
    CHECK(median_small_error_pct(with, 4) <= 60.0);
    CHECK(median_small_error_pct(with, 4) < median_small_error_pct(without, 4));
    CHECK(median_small_error_pct(with, 8) < median_small_error_pct(without, 8));
    // >= 1 MiB unchanged
    for (std::size_t i = 0; i < with.groups.size(); ++i)
      CHECK(with.groups[i].median_abs_error_pct_ge_1mib ==
            doctest::Approx(without.groups[i].median_abs_error_pct_ge_1mib));
  }

  TEST_CASE("launch_us in a calibration file: optional, range-checked, written back") {
    const std::string curve =
        R"({"curves":[{"link":"nvswitch","family":"collective","alpha_us":1,"e_max":0.5,)"
        R"("s_half_bytes":1e6)";
    CHECK(parse_comm_calibration(curve + "}]}", "c.json").curves.begin()->second.launch_us < 0);
    const CommCalibration c = parse_comm_calibration(curve + R"(,"launch_us":20}]})", "c.json");
    CHECK(c.curves.begin()->second.launch_us == 20);
    CHECK(comm_calibration_to_json(c).find("\"launch_us\": 20") != std::string::npos);
    CHECK_THROWS_WITH_AS(parse_comm_calibration(curve + R"(,"launch_us":-5}]})", "c.json"),
                         doctest::Contains("launch_us"), Error);
    CHECK(comm_protocol_name(CommProtocol::kLl128) == "ll128");
  }
}
