// The catalog's GPU links (gpu_catalog/README.md, `interconnect`): every GPU has them with a
// source, GPUs without NVLink say so by omission, and bad fields are named.
#include "tilecast/interconnect.hpp"

#include <doctest/doctest.h>

#include <string>

#include "support/helpers.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"

using namespace tilecast;

namespace {

std::string interconnect_error(const std::string& interconnect, const std::string& extra = "") {
  const std::string text = R"({"id": "x", "interconnect": )" + interconnect + extra +
                           R"(, "interconnect_source": "test"})";
  return test::error_of([&] { (void)parse_gpu_interconnect(text, "gpu.json"); });
}

}  // namespace

TEST_SUITE("interconnect") {
  TEST_CASE("every catalog GPU has its links and their source") {
    for (const auto& g : gpu_catalog()) {
      CAPTURE(g.id);
      const GpuInterconnect* links = catalog_interconnect(g.id);
      REQUIRE(links != nullptr);
      CHECK(!links->source.empty());
      CHECK((links->pcie || links->nvlink_c2c_bw_gbps_per_direction > 0));
      CHECK((links->pcie || links->nvlink || links->infinity_fabric));
      if (g.vendor == "AMD") CHECK(links->infinity_fabric.has_value());
      if (links->pcie) {
        // x16 per direction: Gen3 ~16, Gen4 ~32, Gen5 ~64, Gen6 ~128 GB/s.
        const double expected = 16.0 * (1 << (links->pcie->generation - 3));
        CHECK(links->pcie->bw_gbps_per_direction == doctest::Approx(expected));
      }
    }
  }

  TEST_CASE("datasheet figures") {
    const auto* a100 = catalog_interconnect("a100-80gb-sxm");
    REQUIRE(a100->nvlink);
    CHECK(a100->nvlink->generation == 3);
    CHECK(a100->nvlink->links == 12);
    CHECK(a100->nvlink->bw_gbps_per_direction == 300);
    CHECK(a100->nvlink->form == "baseboard");
    CHECK(catalog_interconnect("a100-80gb-pcie")->nvlink->form == "bridge");
    const auto* h100 = catalog_interconnect("h100-sxm");
    CHECK(h100->nvlink->generation == 4);
    CHECK(h100->nvlink->links == 18);
    CHECK(h100->nvlink->bw_gbps_per_direction == 450);
    CHECK(h100->pcie->generation == 5);
    const auto* mi300x = catalog_interconnect("mi300x");
    REQUIRE(mi300x->infinity_fabric);
    CHECK(mi300x->infinity_fabric->links == 7);
    CHECK(mi300x->infinity_fabric->bw_gbps_per_direction_per_link == 64);
  }

  TEST_CASE("GPUs without NVLink carry PCIe only") {
    for (const char* id : {"t4", "l4", "l40s", "rtx-4090", "rtx-4080", "v100-pcie", "p100-pcie"}) {
      CAPTURE(id);
      const auto* links = catalog_interconnect(id);
      REQUIRE(links != nullptr);
      CHECK(!links->nvlink);
      CHECK(links->pcie.has_value());
    }
    CHECK(catalog_interconnect("t4")->pcie->generation == 3);
    CHECK(catalog_interconnect("no such gpu") == nullptr);
  }

  TEST_CASE("a file without links parses to none") {
    const auto links = parse_gpu_interconnect(R"({"id": "x"})", "gpu.json");
    CHECK(!links.nvlink);
    CHECK(!links.pcie);
    CHECK(links.source.empty());
  }

  TEST_CASE("errors name the field") {
    CHECK(interconnect_error(
              R"({"nvlink": {"generation": 0, "links": 12, "bw_gbps_per_direction": 300,
                   "form": "bridge"}})")
              .find("interconnect.nvlink: field 'generation'") != std::string::npos);
    CHECK(interconnect_error(
              R"({"nvlink": {"generation": 3, "links": 12, "bw_gbps_per_direction": 300,
                   "form": "cable"}})")
              .find("field 'form'") != std::string::npos);
    CHECK(interconnect_error(R"({"pcie": {"generation": 4, "lanes": 16}})")
              .find("interconnect.pcie: field 'bw_gbps_per_direction' is missing") !=
          std::string::npos);
    CHECK(interconnect_error(R"({"pcie": {"generation": 4, "lanes": 16,
                   "bw_gbps_per_direction": 32, "peer_to_peer": "no"}})")
              .find("field 'peer_to_peer'") != std::string::npos);
    CHECK(interconnect_error(R"({"infinity_fabric": {"links": 7, "bw_gbps_per_direction": 64}})")
              .find("'bw_gbps_per_direction_per_link'") != std::string::npos);
    CHECK(interconnect_error(R"({"nvlnk": {}})")
              .find("interconnect: unknown field 'nvlnk'; allowed: nvlink, pcie") !=
          std::string::npos);
    CHECK(interconnect_error(R"([1])").find("field 'interconnect' must be an object") !=
          std::string::npos);
    std::string no_source;
    try {
      parse_gpu_interconnect(R"({"interconnect": {}})", "gpu.json");
    } catch (const Error& e) {
      no_source = e.what();
    }
    CHECK(no_source.find("'interconnect_source' is missing") != std::string::npos);
  }
}
