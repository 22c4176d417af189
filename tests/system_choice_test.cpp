// Which system a group of GPUs runs on when a request names none (system_for_gpus): the catalog
// system built from the GPU, else one node wired as its catalog links say, for training, the
// megatron engine, plans and serving alike; a clear error beyond that.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "serve/tensor_parallel.hpp"
#include "tilecast/api.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/interconnect.hpp"
#include "tilecast/parallel.hpp"
#include "tilecast/system.hpp"

using namespace tilecast;

namespace {

nlohmann::json call(std::string (*f)(std::string_view), const std::string& request) {
  return nlohmann::json::parse(f(request));
}

bool mentions(const nlohmann::json& list, const std::string& what) {
  for (const auto& x : list)
    if (x.get<std::string>().find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_SUITE("system_choice") {
  TEST_CASE("the catalog system first, across its nodes; else a node of up to 8 built from links") {
    const GpuSpec& h100 = find_gpu("h100-sxm");
    CHECK(system_for_gpus(h100, 8)->id == "dgx-h100");
    CHECK(system_for_gpus(h100, 64)->id == "dgx-h100");  // 8 nodes on its InfiniBand
    const GpuSpec& rtx = find_gpu("rtx-4090");
    for (int gpus : {2, 4, 8}) {
      CAPTURE(gpus);
      const auto s = system_for_gpus(rtx, gpus);
      REQUIRE(s.has_value());
      CHECK(s->id == "rtx-4090-node-" + std::to_string(gpus));
      CHECK(s->topology == Topology::kPcie);
      CHECK(s->max_nodes == 1);
    }
    CHECK(system_for_gpus(find_gpu("h100-pcie"), 3)->gpus_per_node == 4);  // bridged pairs
    // GeForce cards reach each other through host memory: the node says so; an L4 node does not
    CHECK(system_for_gpus(rtx, 4)->name.find("without peer-to-peer") != std::string::npos);
    CHECK_FALSE(catalog_interconnect("rtx-4090")->pcie->peer_to_peer);
    CHECK(catalog_interconnect("l4")->pcie->peer_to_peer);
    CHECK(node_of_catalog_links("l4", "NVIDIA L4", 2)->name.find("peer") == std::string::npos);
    // beyond a node, or a GPU the catalog gives no links: none, and the reason names the limit
    CHECK_FALSE(system_for_gpus(rtx, kMaxBuiltNodeGpus + 1).has_value());
    CHECK(no_system_for(rtx, 16).find("at most 8") != std::string::npos);
    GpuSpec custom = rtx;
    custom.id.clear();
    custom.name = "My GPU";
    CHECK_FALSE(system_for_gpus(custom, 2).has_value());
    CHECK(no_system_for(custom, 2).find("no links") != std::string::npos);
  }

  TEST_CASE("training on GPUs no catalog system holds runs on the node built from their links") {
    const std::string head =
        R"({"model":"gpt2-large","gpu":"rtx-4090","mode":"training","seq":512,"batch":8,)"
        R"("precision":"bf16","predictor":"roofline",)";
    const auto built = call(api::forecast_model, head + R"("gpus":4,"dp":2,"tp":2})");
    CHECK(mentions(built.at("assumptions"), "built from its catalog links"));
    // the same step with that node given as a system spec: the same forecast
    const auto node = node_of_catalog_links("rtx-4090", find_gpu("rtx-4090").name, 4);
    REQUIRE(node.has_value());
    const auto given = call(api::forecast_model, head + R"("gpus":4,"dp":2,"tp":2,"system":)" +
                                                     system_spec_to_json(*node) + "}");
    CHECK(built.at("step_ms") == given.at("step_ms"));
    // and by the id its assumptions print: what a forecast names can be given back
    const auto by_id =
        call(api::forecast_model, head + R"("gpus":4,"dp":2,"tp":2,"system":"rtx-4090-node-4"})");
    CHECK(built.at("step_ms") == by_id.at("step_ms"));
    // its all-reduces run over the GPUs' PCIe links
    CHECK(mentions(built.at("assumptions"), "ring over pcie"));
    // 16 GPUs: no node holds them; the error says what would
    CHECK_THROWS_WITH_AS(api::forecast_model(head + R"("gpus":16,"dp":16})"),
                         doctest::Contains("at most 8"), Error);
  }

  TEST_CASE("a built node's id names it back; the catalog's names come first") {
    CHECK(system_named("dgx-h100").id == "dgx-h100");
    const SystemSpec four = system_named("rtx-4090-node-4");
    CHECK(four.id == "rtx-4090-node-4");
    CHECK(four.gpus_per_node == 4);
    CHECK(four.topology == Topology::kPcie);
    // the GPU by its name too, as everywhere
    CHECK(system_named("NVIDIA GeForce RTX 4090-node-2").id == "rtx-4090-node-2");
    for (const char* bad : {"rtx-4090-node-9", "rtx-4090-node-0", "rtx-4090-node-", "my-gpu-node-2",
                            "rtx-4090-node-2x", "-node-2", "rtx-4090-node-04"}) {
      CAPTURE(bad);
      CHECK_THROWS_WITH_AS(system_named(bad), doctest::Contains("GPU-node-N"), Error);
    }
    // NVLink-bridged pairs: 3 GPUs are built as the node of 4, which has that name only
    CHECK(system_named("h100-pcie-node-4").gpus_per_node == 4);
    CHECK_THROWS_WITH_AS(
        system_named("h100-pcie-node-3"),
        doctest::Contains("the node built for 3 of its GPUs is 'h100-pcie-node-4'"), Error);
  }

  TEST_CASE("the megatron engine and the plan search take the same system") {
    const auto m = call(api::forecast_model,
                        R"({"model":"gpt2-large","gpu":"l40","mode":"training","seq":1024,)"
                        R"("batch":8,"engine":"megatron","precision":"bf16","predictor":)"
                        R"("roofline","gpus":4,"tp":2,"dp":2})");
    CHECK(m.at("step_ms").get<double>() > 0);
    const std::string plan_head =
        R"({"model":"gpt2-large","gpu":"rtx-4090","global_batch":16,"seq":512,)"
        R"("predictor":"roofline","top":3)";
    // no GPU count: every power of two up to the largest node its links build
    const auto all = call(api::plan_parallel, plan_head + "}");
    CHECK(all.at("system") == "rtx-4090-node-8");
    CHECK(all.at("gpu_counts") == nlohmann::json::array({1, 2, 4, 8}));
    CHECK(call(api::plan_parallel, plan_head + R"(,"gpus":4})").at("system") == "rtx-4090-node-4");
    // a GPU with a catalog system plans on it, as when the system is named
    CHECK(call(api::plan_parallel, R"({"model":"gpt2-large","gpu":"h100-sxm","global_batch":16,)"
                                   R"("seq":512,"predictor":"roofline","top":3})")
              .at("system") == "dgx-h100");
    CHECK_THROWS_WITH_AS(api::plan_parallel(R"({"model":"gpt2-large","global_batch":16})"),
                         doctest::Contains("'system' or 'gpu'"), Error);
    CHECK_THROWS_WITH_AS(api::plan_parallel(plan_head + R"(,"gpus":32})"),
                         doctest::Contains("at most 8"), Error);
  }

  TEST_CASE("serving's groups beyond one node take the catalog system's network") {
    // TP 16 of H100s spans two DGX H100s on InfiniBand: slower than 8 on NVSwitch per byte
    const detail::NodeCollective two(find_gpu("h100-sxm"), 16), one(find_gpu("h100-sxm"), 8);
    CHECK(two.description().find("DGX H100") != std::string::npos);
    CHECK(two.ms(4.0 * 1024 * 1024) > one.ms(4.0 * 1024 * 1024));
    // so do B200s, over the DGX B200s' NDR InfiniBand (DGX SuperPOD B200 reference architecture)
    const detail::NodeCollective b200_two(find_gpu("b200"), 16);
    CHECK(b200_two.description().find("DGX B200") != std::string::npos);
    // and MI300Xs over the platform's 400 Gb/s NICs (AMD's MI3XX reference design)
    const detail::NodeCollective mi300x_two(find_gpu("mi300x"), 16),
        mi300x_one(find_gpu("mi300x"), 8);
    CHECK(mi300x_two.description().find("MI300X platform") != std::string::npos);
    CHECK(mi300x_two.ms(4.0 * 1024 * 1024) > mi300x_one.ms(4.0 * 1024 * 1024));
    // the L40S system is one node (no network in its file), and links build no node of 16
    CHECK_THROWS_WITH_AS(detail::NodeCollective(find_gpu("l40s"), 16),
                         doctest::Contains("at most 8"), Error);
  }
}
