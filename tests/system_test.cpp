// Multi-GPU systems as data (gpu_catalog/systems/): the catalog loads, Vidur's node names
// resolve, bandwidths default to the GPU's catalog links, and bad files name the field.
#include "tilecast/system.hpp"

#include <doctest/doctest.h>

#include <string>

#include "support/helpers.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"

using namespace tilecast;

namespace {

std::string system_spec_error(const std::string& text) {
  return test::error_of([&] { (void)parse_system_spec(text, "sys.json"); });
}

}  // namespace

TEST_SUITE("system") {
  TEST_CASE("the catalog covers the platforms the issue names") {
    for (const char* id : {"dgx-a100", "dgx-h100", "a100-pcie-nvlink-pairs-4x", "l40s-pcie-8x",
                           "l4-pcie-8x", "mi250-4x", "mi300x-8x", "a40-pcie-nvlink-pairs-8x"})
      CHECK(lookup_system(id) != nullptr);
    CHECK(find_system("a100_dgx").id == "dgx-a100");
    CHECK(find_system("HGX H100").id == "dgx-h100");
    CHECK(find_system("a100_pairwise_nvlink").topology == Topology::kNvlinkPairs);
    CHECK_THROWS_WITH_AS(find_system("dgx-z900"), doctest::Contains("known: "), Error);
    for (const auto& s : system_catalog()) {
      CAPTURE(s.id);
      CHECK(!s.source.empty());
      if (s.topology != Topology::kPcie) CHECK(s.link_bw_gbps_per_direction > 0);
      if (s.max_nodes > 1) CHECK(s.network.has_value());
    }
  }

  TEST_CASE("bandwidths left out come from the GPU's catalog links") {
    const SystemSpec l4 = find_system("l4-pcie-8x");
    CHECK(l4.pcie_bw_gbps_per_direction == 32);
    const SystemSpec s = parse_system_spec(
        R"({"id": "hgx", "gpu": "H100 SXM", "gpus_per_node": 8, "topology": "nvswitch",
            "source": "test"})",
        "sys.json");
    CHECK(s.gpu == "h100-sxm");
    CHECK(s.link_bw_gbps_per_direction == 450);
    const SystemSpec mesh = parse_system_spec(
        R"({"id": "m", "gpu": "mi300x", "gpus_per_node": 8, "topology": "infinity-fabric-mesh",
            "source": "test"})",
        "sys.json");
    CHECK(mesh.links_per_gpu == 7);
    CHECK(mesh.link_bw_gbps_per_direction == 64);
  }

  TEST_CASE("errors name the field") {
    const std::string base = R"("id": "x", "gpu": "a100-80gb-sxm", "source": "s")";
    CHECK(system_spec_error("{" + base + R"(, "gpus_per_node": 8, "topology": "torus"})")
              .find("field 'topology' is \"torus\"") != std::string::npos);
    CHECK(system_spec_error("{" + base + R"(, "gpus_per_node": 3, "topology": "nvlink-pairs"})")
              .find("'gpus_per_node' is 3; nvlink-pairs needs an even count") != std::string::npos);
    CHECK(system_spec_error("{" + base + R"(, "gpus_per_node": 0, "topology": "nvswitch"})")
              .find("'gpus_per_node'") != std::string::npos);
    CHECK(system_spec_error("{" + base +
                            R"(, "gpus_per_node": 8, "topology": "nvswitch", "max_nodes": 4})")
              .find("field 'network' is missing") != std::string::npos);
    CHECK(system_spec_error("{" + base +
                            R"(, "gpus_per_node": 8, "topology": "nvswitch", "max_nodes": 4,
                   "network": {"nics_per_node": 8, "nic_gbit_per_s": -1}})")
              .find("network: field 'nic_gbit_per_s'") != std::string::npos);
    // a rack-scale node carries a NIC per GPU (the GB200 NVL72's 72), up to gpus_per_node's bound
    CHECK(system_spec_error("{" + base +
                            R"(, "gpus_per_node": 8, "topology": "nvswitch", "max_nodes": 4,
                   "network": {"nics_per_node": 2000, "nic_gbit_per_s": 400}})")
              .find("network: field 'nics_per_node' is 2000; allowed: 1 to 1024") !=
          std::string::npos);
    CHECK(find_system("gb200-nvl72").network->nics_per_node == 72);
    CHECK(system_spec_error(R"({"id": "x", "gpu": "l4", "source": "s", "gpus_per_node": 8,
                      "topology": "nvswitch"})")
              .find("'intra_node.link_bw_gbps_per_direction' is missing and GPU 'l4' has no "
                    "catalog NVLink") != std::string::npos);
    CHECK(system_spec_error(R"({"id": "x", "gpu": "my-gpu", "source": "s", "gpus_per_node": 4,
                      "topology": "pcie", "intra_node": {"pcie_bw_gbps_per_direction": 0}})")
              .find("intra_node: field 'pcie_bw_gbps_per_direction'") != std::string::npos);
    CHECK(
        system_spec_error(R"({"gpu": "l4", "gpus_per_node": 2, "topology": "pcie", "source": "s"})")
            .find("field 'id' is missing") != std::string::npos);
  }

  TEST_CASE("the JSON API lists and validates systems") {
    const std::string list = api::list_systems();
    CHECK(list.find("\"dgx-a100\"") != std::string::npos);
    CHECK(list.find("\"gpu_interconnect\"") != std::string::npos);
    const std::string v = api::validate_system(
        R"({"id": "c", "gpu": "a100-80gb-pcie", "gpus_per_node": 4, "topology": "nvlink-pairs",
            "source": "mine"})");
    CHECK(v.find("\"link_bw_gbps_per_direction\":300") != std::string::npos);
    CHECK(v.find("\"pcie_bw_gbps_per_direction\":32") != std::string::npos);
  }
}
