// The communication model's laws (docs/comm.md): each collective's steps and bytes factor,
// the slowest hop per topology, the efficiency curve, the calibration file and the JSON API.
#include "tilecast/comm.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

CollectiveForecast run(const char* system, Collective c, double bytes, int gpus,
                       CommAlgorithm a = CommAlgorithm::kAuto, int per_node = 0) {
  CollectiveRequest q;
  q.collective = c;
  q.algorithm = a;
  q.bytes = bytes;
  q.gpus = gpus;
  q.gpus_per_node = per_node;
  return forecast_collective(find_system(system), q);
}

// A calibration with one ideal curve: no latency, full bandwidth at every size.
CommCalibration ideal() {
  CommCalibration c;
  for (LinkClass l : {LinkClass::kNvswitch, LinkClass::kNvlinkBridge, LinkClass::kPcie,
                      LinkClass::kInfinityFabric, LinkClass::kNetwork})
    for (CommFamily f : {CommFamily::kCollective, CommFamily::kP2p}) c.curves[{l, f}] = {0, 1, 0};
  return c;
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

TEST_SUITE("comm") {
  TEST_CASE("ring all-reduce: 2(n-1) steps, 2(n-1)/n of the buffer") {
    for (int n : {2, 4, 8}) {
      CAPTURE(n);
      const auto f = run("dgx-a100", Collective::kAllReduce, 64 * kMiB, n);
      CHECK(f.algorithm == CommAlgorithm::kRing);
      CHECK(f.steps == 2 * (n - 1));
      CHECK(f.bytes_factor == doctest::Approx(2.0 * (n - 1) / n));
    }
  }

  TEST_CASE("tree all-reduce: 2 ceil(log2 n) steps, factor 2") {
    const auto f = run("dgx-a100", Collective::kAllReduce, kMiB, 16, CommAlgorithm::kTree);
    CHECK(f.steps == 8);
    CHECK(f.bytes_factor == 2);
    CHECK(run("dgx-a100", Collective::kAllReduce, kMiB, 8, CommAlgorithm::kTree).steps == 6);
    CHECK_THROWS_WITH_AS(run("dgx-a100", Collective::kSendRecv, kMiB, 2, CommAlgorithm::kTree),
                         doctest::Contains("all_reduce only"), Error);
  }

  TEST_CASE("reduce-scatter and all-gather: n-1 steps, (n-1)/n; together one all-reduce") {
    const SystemSpec dgx = find_system("dgx-a100");
    const CommCalibration cal = ideal();
    for (int n : {2, 4, 8}) {
      CAPTURE(n);
      CollectiveRequest q;
      q.bytes = 256 * kMiB;
      q.gpus = n;
      q.collective = Collective::kReduceScatter;
      const auto rs = forecast_collective(dgx, q, cal);
      q.collective = Collective::kAllGather;
      const auto ag = forecast_collective(dgx, q, cal);
      q.collective = Collective::kAllReduce;
      const auto ar = forecast_collective(dgx, q, cal);
      CHECK(rs.steps == n - 1);
      CHECK(ag.bytes_factor == doctest::Approx((n - 1.0) / n));
      CHECK(rs.time_ms + ag.time_ms == doctest::Approx(ar.time_ms));
      // Ideal curve: bytes x factor at the NVLink rate (300 GB/s).
      CHECK(ar.time_ms == doctest::Approx(256 * kMiB * 2.0 * (n - 1) / n / 300e9 * 1e3));
    }
  }

  TEST_CASE("send/recv: one step, the whole message; all-to-all: (n-1)/n, off-node share") {
    const auto p2p = run("dgx-a100", Collective::kSendRecv, 8 * kMiB, 2);
    CHECK(p2p.steps == 1);
    CHECK(p2p.bytes_factor == 1);
    const auto a2a = run("dgx-a100", Collective::kAllToAll, 8 * kMiB, 8);
    CHECK(a2a.steps == 7);
    CHECK(a2a.bytes_factor == doctest::Approx(7.0 / 8));
    // 16 GPUs on 2 nodes: half of each buffer crosses the network, 8 GPUs share 8 HDR NICs.
    const auto off = run("dgx-a100", Collective::kAllToAll, 8 * kMiB, 16);
    CHECK(off.link == LinkClass::kNetwork);
    CHECK(off.bytes_factor == doctest::Approx(0.5));
    CHECK(off.path_bw_gbps == doctest::Approx(8 * 200 / 8.0 / 8));
  }

  TEST_CASE("the slowest hop follows the topology") {
    CHECK(run("dgx-a100", Collective::kAllReduce, kMiB, 8).link == LinkClass::kNvswitch);
    CHECK(run("dgx-a100", Collective::kAllReduce, kMiB, 8).path_bw_gbps == 300);
    const auto pair = run("a100_pairwise_nvlink", Collective::kAllReduce, kMiB, 2);
    CHECK(pair.link == LinkClass::kNvlinkBridge);
    CHECK(pair.path_bw_gbps == 300);
    const auto four = run("a100_pairwise_nvlink", Collective::kAllReduce, kMiB, 4);
    CHECK(four.link == LinkClass::kPcie);
    CHECK(four.path_bw_gbps == 32);
    CHECK(run("l40s-pcie-8x", Collective::kAllGather, kMiB, 8).link == LinkClass::kPcie);
    // MI300X: a ring over 8 GPUs uses all 7 links; a pair gets one.
    CHECK(run("mi300x-8x", Collective::kAllReduce, kMiB, 8).path_bw_gbps == 7 * 64);
    CHECK(run("mi300x-8x", Collective::kSendRecv, kMiB, 2).path_bw_gbps == 64);
    CHECK(run("mi250-4x", Collective::kSendRecv, kMiB, 2).path_bw_gbps == 2 * 50);
    CHECK_FALSE(run("mi300x-8x", Collective::kAllReduce, kMiB, 8).calibrated);
    // Across nodes: the adapters, one per GPU on the node (HDR: 25 GB/s each).
    const auto two_nodes = run("dgx-a100", Collective::kAllReduce, kMiB, 16);
    CHECK(two_nodes.link == LinkClass::kNetwork);
    CHECK(two_nodes.nodes == 2);
    CHECK(two_nodes.path_bw_gbps == 200);
    CHECK(run("dgx-a100", Collective::kSendRecv, kMiB, 2, CommAlgorithm::kAuto, 1).path_bw_gbps ==
          25);
  }

  TEST_CASE("efficiency rises with size towards e_max; time grows linearly at large sizes") {
    const auto small = run("dgx-a100", Collective::kAllReduce, 64 * 1024, 8);
    const auto big = run("dgx-a100", Collective::kAllReduce, 1024 * kMiB, 8);
    const auto bigger = run("dgx-a100", Collective::kAllReduce, 2048 * kMiB, 8);
    CHECK(small.efficiency < big.efficiency);
    CHECK(big.efficiency <= default_comm_calibration()
                                .curves.at({LinkClass::kNvswitch, CommFamily::kCollective})
                                .e_max);
    CHECK(bigger.time_ms / big.time_ms == doctest::Approx(2).epsilon(0.02));
    CHECK(big.time_ms == doctest::Approx(big.latency_ms + big.transfer_ms));
    CHECK(big.bus_bw_gbps < 300);
  }

  TEST_CASE("requests outside the system are refused with the reason") {
    CHECK_THROWS_WITH_AS(run("a100_pairwise_nvlink", Collective::kAllReduce, kMiB, 8),
                         doctest::Contains("allows 2 to 4"), Error);
    CHECK_THROWS_WITH_AS(
        run("a100_pairwise_nvlink", Collective::kSendRecv, kMiB, 2, CommAlgorithm::kAuto, 1),
        doctest::Contains("has no network"), Error);
    CHECK_THROWS_WITH_AS(run("dgx-a100", Collective::kAllReduce, kMiB, 12, CommAlgorithm::kAuto, 8),
                         doctest::Contains("gpus_per_node is 8"), Error);
    CHECK_THROWS_WITH_AS(run("dgx-a100", Collective::kAllReduce, 0, 8), doctest::Contains("bytes"),
                         Error);
    CHECK_THROWS_WITH_AS(parse_collective("allreduce"), doctest::Contains("all_reduce"), Error);
  }

  TEST_CASE("calibration file: the embedded one covers every measured class; errors named") {
    const auto& cal = default_comm_calibration();
    for (auto key : {std::pair{LinkClass::kNvswitch, CommFamily::kCollective},
                     std::pair{LinkClass::kNvswitch, CommFamily::kP2p},
                     std::pair{LinkClass::kNvlinkBridge, CommFamily::kCollective},
                     std::pair{LinkClass::kNvlinkBridge, CommFamily::kP2p},
                     std::pair{LinkClass::kPcie, CommFamily::kCollective},
                     std::pair{LinkClass::kNetwork, CommFamily::kCollective}})
      CHECK(cal.curves.count(key) == 1);
    CHECK(!cal.command.empty());
    const auto round = parse_comm_calibration(comm_calibration_to_json(cal), "again");
    CHECK(round.curves.size() == cal.curves.size());
    auto err = [](const std::string& text) {
      try {
        parse_comm_calibration(text, "cal.json");
      } catch (const Error& e) {
        return std::string(e.what());
      }
      return std::string();
    };
    CHECK(err(R"({"curves": []})").find("'curves' is empty") != std::string::npos);
    CHECK(err(R"({"curves": [{"link": "ether", "family": "p2p"}]})")
              .find("curves[0]: field 'link' is \"ether\"") != std::string::npos);
    CHECK(err(R"({"curves": [{"link": "pcie", "family": "p2p", "alpha_us": 1, "e_max": 5,
                              "s_half_bytes": 1}]})")
              .find("curves[0]: field 'e_max'") != std::string::npos);
  }

  TEST_CASE("JSON API: names or inline systems, fields named in errors") {
    const auto j = nlohmann::json::parse(api::forecast_collective(
        R"({"system": "dgx-a100", "collective": "all_reduce", "bytes": 67108864, "gpus": 8})"));
    CHECK(j["link"] == "nvswitch");
    CHECK(j["algorithm"] == "ring");
    CHECK(j["time_ms"].get<double>() > 0.3);
    CHECK(j["time_ms"].get<double>() < 1.5);
    const auto custom = nlohmann::json::parse(api::forecast_collective(
        R"({"system": {"id": "mine", "gpu": "rtx-4090", "gpus_per_node": 4, "topology": "pcie",
                       "source": "me"},
            "collective": "all_to_all", "bytes": 1048576, "gpus": 4})"));
    CHECK(custom["path_bw_gbps"] == 32);
    CHECK_THROWS_WITH_AS(
        api::forecast_collective(R"({"system": "dgx-a100", "bytes": 1, "gpus": 2})"),
        doctest::Contains("field 'collective' is missing"), Error);
    CHECK_THROWS_WITH_AS(
        api::forecast_collective(
            R"({"system": "dgx-a100", "collective": "all_reduce", "bytes": -1, "gpus": 2})"),
        doctest::Contains("field 'bytes'"), Error);
  }
}
