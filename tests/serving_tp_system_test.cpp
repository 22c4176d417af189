// Tensor-parallel serving on the DGX H200, DGX B200, GB200 NVL72 and the MI325X and MI355X
// platforms (gpu_catalog/systems/): their all-reduces take the comm model on the system, with its
// latency and efficiency, not the latency-free ring bound (at the NVLink or PCIe bandwidth) these
// GPUs fell back to before.
#include <doctest/doctest.h>

#include <string>
#include <tuple>

#include "serve/tensor_parallel.hpp"
#include "tilecast/comm.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

TEST_SUITE("serving_tp_system") {
  TEST_CASE("the H200, B200, MI325X and MI355X have their 8-GPU systems, at their catalog links") {
    // (before these systems a TP all-reduce on them was a latency-free ring bound)
    for (const auto& [gpu, system, topology, gbps] :
         {std::tuple{"h200", "dgx-h200", Topology::kNvswitch, 450.0},
          std::tuple{"b200", "dgx-b200", Topology::kNvswitch, 900.0},
          std::tuple{"mi325x", "mi325x-8x", Topology::kInfinityFabricMesh, 64.0},
          std::tuple{"mi355x", "mi355x-8x", Topology::kInfinityFabricMesh, 76.8}}) {
      CAPTURE(gpu);
      const SystemSpec& s = find_system(system);
      CHECK(s.gpu == gpu);
      CHECK(s.gpus_per_node == 8);
      CHECK(s.topology == topology);
      CHECK(s.link_bw_gbps_per_direction == doctest::Approx(gbps));
      const detail::NodeCollective ar(find_gpu(gpu), 8);
      CHECK(ar.description().find("comm model") != std::string::npos);
      CHECK(ar.description().find(s.name) != std::string::npos);
      CHECK(ar.ms(16384) > 0.005);
      // the AMD platforms: the MI300X platform's fabric and curve, so a decode all-reduce,
      // latency-bound, costs about what it costs there (the links move only its transfer term)
      if (topology == Topology::kInfinityFabricMesh)
        CHECK(
            ar.ms(16384) ==
            doctest::Approx(detail::NodeCollective(find_gpu("mi300x"), 8).ms(16384)).epsilon(0.1));
    }
  }

  TEST_CASE("the GB200's NVL72 rack is one NVLink domain of 72 GPUs, priced as the DGX B200") {
    const SystemSpec& s = find_system("gb200-nvl72");
    CHECK(s.gpu == "gb200");
    CHECK(s.gpus_per_node == 72);
    CHECK(s.topology == Topology::kNvswitch);
    CHECK(s.link_bw_gbps_per_direction == doctest::Approx(900.0));
    for (int tp : {2, 4, 8, 72}) {
      CAPTURE(tp);
      const detail::NodeCollective gb(find_gpu("gb200"), tp);
      CHECK(gb.description().find(s.name) != std::string::npos);
      if (tp <= 8)  // the same fabric and link as the B200's DGX: the same all-reduce
        for (double bytes : {16384.0, 4.0 * 1024 * 1024})
          CHECK(gb.ms(bytes) ==
                doctest::Approx(detail::NodeCollective(find_gpu("b200"), tp).ms(bytes)));
    }
  }

  TEST_CASE("a GPU no catalog system holds gets one node wired as its catalog links say") {
    // (gpu, the topology its links give, a catalog system of the same links to compare with)
    for (const auto& [gpu, topology, twin] :
         {std::tuple{"a100-40gb-sxm", Topology::kNvswitch, "dgx-a100"},
          std::tuple{"h100-pcie", Topology::kNvlinkPairs, "a100-pcie-nvlink-pairs-4x"},
          std::tuple{"rtx-4090", Topology::kPcie, ""},
          std::tuple{"mi210", Topology::kInfinityFabricMesh, ""}}) {
      CAPTURE(gpu);
      const GpuSpec& g = find_gpu(gpu);
      for (const SystemSpec& s : system_catalog()) CHECK(s.gpu != g.id);
      const auto node = node_of_catalog_links(g.id, g.name, 2);
      REQUIRE(node.has_value());
      CHECK(node->topology == topology);
      CHECK(node->gpus_per_node == 2);
      const detail::NodeCollective ar(g, 2);
      CHECK(ar.description().find("built from its catalog links") != std::string::npos);
      // a decode step's all-reduce pays a latency, as on a catalog system
      CHECK(ar.ms(16384) > 0.005);
      if (*twin) {  // the same link class and bandwidth within the pair: the same time
        CollectiveRequest r;
        r.bytes = 16384;
        r.gpus = 2;
        CHECK(ar.ms(16384) == doctest::Approx(forecast_collective(find_system(twin), r).time_ms));
      }
    }
    // an odd count of bridged GPUs takes an even node; a GPU outside the catalog has no links
    CHECK(node_of_catalog_links("h100-pcie", "NVIDIA H100 PCIe", 3)->gpus_per_node == 4);
    CHECK_FALSE(node_of_catalog_links("my-gpu", "My GPU", 2).has_value());
  }

  TEST_CASE("a B200 TP 8 all-reduce pays the comm model's latency and efficiency") {
    const detail::NodeCollective ar(find_gpu("b200"), 8);
    // the ring bound it had: 2 (n - 1) / n x bytes at 900 GB/s, no latency
    auto ring_ms = [](double bytes) { return 2.0 * 7 / 8 * bytes / 900e9 * 1e3; };
    // 4 MiB: Llama 3 70B's hidden states of 256 decode tokens in BF16
    const double big = 4.0 * 1024 * 1024;
    CHECK(ar.ms(big) > 3 * ring_ms(big));
    CHECK(ar.ms(big) < 10 * ring_ms(big));
    // a decode step of one sequence (16 KiB): a launch and protocol latency of microseconds
    CHECK(ar.ms(16384) > 0.005);
    CHECK(ar.ms(16384) > 100 * ring_ms(16384));
    // one GPU: nothing to reduce
    CHECK(detail::NodeCollective(find_gpu("b200"), 1).ms(big) == 0);
  }
}
