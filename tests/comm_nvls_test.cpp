// NCCL's NVLS all-reduce (NVLink SHARP; comm/all_reduce.cpp, docs/comm.md "NVLS"): on a system
// whose NVSwitch reduces, inside one node, each GPU's link carries (n+1)/n of the buffer where a
// ring's carries 2(n-1)/n, at NCCL's NVLS latency plus the calibrated launch cost; auto takes it
// where it is faster (large messages), the ring's low-latency protocols below; refused elsewhere.
#include <doctest/doctest.h>

#include <string>

#include "tilecast/comm.hpp"
#include "tilecast/error.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

CollectiveForecast all_reduce(const char* system, double bytes, int gpus,
                              CommAlgorithm a = CommAlgorithm::kAuto,
                              Collective c = Collective::kAllReduce) {
  CollectiveRequest q;
  q.collective = c;
  q.algorithm = a;
  q.bytes = bytes;
  q.gpus = gpus;
  return forecast_collective(find_system(system), q);
}

std::string error_of(const char* system, int gpus, CommAlgorithm a, Collective c) {
  try {
    all_reduce(system, 1 << 30, gpus, a, c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

TEST_SUITE("comm-nvls") {
  TEST_CASE("the catalog's NVSwitch systems from the third generation on reduce in the switch") {
    for (const char* id : {"dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72"}) {
      CAPTURE(id);
      CHECK(find_system(id).nvlink_sharp);
    }
    CHECK_FALSE(find_system("dgx-a100").nvlink_sharp);  // second-generation NVSwitch
    // the flag survives the system's JSON
    const SystemSpec& h100 = find_system("dgx-h100");
    CHECK(parse_system_spec(system_spec_to_json(h100), "round trip").nvlink_sharp);
  }

  TEST_CASE("a large all-reduce: (n+1)/n of the buffer each way at the curve's e_max") {
    const CollectiveForecast nvls = all_reduce("dgx-h100", 8 * kGiB, 8);
    const CollectiveForecast ring = all_reduce("dgx-h100", 8 * kGiB, 8, CommAlgorithm::kRing);
    CHECK(nvls.algorithm == CommAlgorithm::kNvls);
    CHECK(nvls.protocol == CommProtocol::kSimple);
    CHECK(nvls.bytes_factor == doctest::Approx(9.0 / 8));
    CHECK(ring.bytes_factor == doctest::Approx(14.0 / 8));
    const CommCalibration& cal = default_comm_calibration();
    const EfficiencyCurve& curve = cal.curves.at({LinkClass::kNvswitch, CommFamily::kCollective});
    CHECK(nvls.efficiency == curve.e_max);
    CHECK(nvls.transfer_ms ==
          doctest::Approx(8 * kGiB * 9.0 / 8 / (nvls.path_bw_gbps * 1e9 * curve.e_max) * 1e3));
    CHECK(nvls.latency_ms > curve.launch_us * 1e-3);  // NCCL's NVLS latency on top
    // at 8 GiB the ring runs at e_max too, so NVLS is close to the byte ratio faster
    CHECK(ring.time_ms / nvls.time_ms == doctest::Approx(14.0 / 9).epsilon(0.02));
    // nccl-tests' bus bandwidth: the ring's factor over the time, whichever algorithm ran
    CHECK(nvls.bus_bw_gbps == doctest::Approx(8 * kGiB * 14.0 / 8 / (nvls.time_ms * 1e-3) / 1e9));
  }

  TEST_CASE("a decode step's few KB stay on the ring's low-latency protocols") {
    const CollectiveForecast small = all_reduce("dgx-h100", 16 * 1024, 8);
    CHECK(small.algorithm == CommAlgorithm::kRing);
    CHECK(small.protocol != CommProtocol::kSimple);
    CHECK(all_reduce("dgx-h100", 16 * 1024, 8, CommAlgorithm::kNvls).time_ms > small.time_ms);
  }

  TEST_CASE("nowhere else: a switch without SHARP, across nodes, another collective") {
    // auto on the A100's NVSwitch: the ring, as before
    CHECK(all_reduce("dgx-a100", 8 * kGiB, 8).algorithm == CommAlgorithm::kRing);
    const std::string a100 = error_of("dgx-a100", 8, CommAlgorithm::kNvls, Collective::kAllReduce);
    CHECK(a100.find("nvls") != std::string::npos);
    CHECK(a100.find("dgx-h100") != std::string::npos);  // the systems that have it, named
    // two nodes of H100s: NVLS stops at the node (auto takes ring or tree across them)
    CHECK(all_reduce("dgx-h100", 8 * kGiB, 16).algorithm != CommAlgorithm::kNvls);
    CHECK(
        error_of("dgx-h100", 16, CommAlgorithm::kNvls, Collective::kAllReduce).find("2 node(s)") !=
        std::string::npos);
    CHECK(error_of("dgx-h100", 8, CommAlgorithm::kNvls, Collective::kReduceScatter)
              .find("reduce_scatter") != std::string::npos);
    CHECK(all_reduce("dgx-h100", 8 * kGiB, 8, CommAlgorithm::kAuto, Collective::kAllGather)
              .algorithm == CommAlgorithm::kRing);
  }

  TEST_CASE("a system file: nvlink_sharp is a boolean, on an nvswitch topology only") {
    auto system = [](const std::string& topology, const std::string& sharp) {
      return R"({"id": "x", "gpu": "h100-sxm", "gpus_per_node": 8, "topology": ")" + topology +
             R"(", "intra_node": {"nvlink_sharp": )" + sharp + R"(}, "source": "test"})";
    };
    CHECK(parse_system_spec(system("nvswitch", "true"), "f.json").nvlink_sharp);
    CHECK_FALSE(parse_system_spec(system("nvswitch", "false"), "f.json").nvlink_sharp);
    CHECK_THROWS_WITH_AS(parse_system_spec(system("pcie", "true"), "f.json"),
                         doctest::Contains("nvlink_sharp"), Error);
    CHECK_THROWS_WITH_AS(parse_system_spec(system("nvswitch", "\"yes\""), "f.json"),
                         doctest::Contains("must be true or false"), Error);
  }
}
