// The architecture table (core/src/model/architectures.cpp): every row is complete and
// consistent, every row has a zoo model, every zoo model parses (also by class name alone) and
// builds in every mode its stack allows and on every engine, and the "supported" lists in errors
// are the table's.
#include "model/architectures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/helpers.hpp"
#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_zoo.hpp"
#include "tilecast/op_graph.hpp"

using namespace tilecast;

namespace {}  // namespace

TEST_SUITE("architectures") {
  TEST_CASE("every row is complete, unique and consistent") {
    std::set<int> ids;
    std::set<std::string> types, prefixes, families;
    for (const ArchitectureTraits& t : architecture_table()) {
      CAPTURE(t.model_type);
      CHECK(ids.insert(int(t.id)).second);
      CHECK(!t.model_type.empty());
      CHECK(types.insert(std::string(t.model_type)).second);
      CHECK(!t.class_prefix.empty());
      CHECK(prefixes.insert(std::string(t.class_prefix)).second);
      CHECK(!t.family.empty());
      CHECK(families.insert(std::string(t.family)).second);
      CHECK(&traits(t.id) == &t);
      CHECK(architecture_name(t.id) == t.model_type);
      // the forward pass: a builder, in the file the row names
      const bool has_builder = t.build != nullptr;
      CHECK(has_builder);
      REQUIRE(!t.builder_file.empty());
      CHECK(test::file_exists(test::repo_dir() + "/core/src/graph/" + std::string(t.builder_file)));
      // the config's words
      CHECK(!t.hf.activation_field.empty());
      if (t.attention_bias == AttentionBias::config ||
          t.attention_bias == AttentionBias::config_attention)
        CHECK(!t.hf.bias_field.empty());
      // two norms and a sequential switch belong to a parallel block; a rotary share to rotary
      CHECK((t.parallel_norms == 1 || t.parallel_norms == 2));
      if (t.parallel_norms == 2 || !t.hf.parallel_field.empty()) CHECK(t.parallel_residual);
      if (!t.hf.rotary_share_field.empty()) CHECK(t.positions == Positions::rotary);
      // experts: a count field and a layer rule exactly when the row routes
      CHECK((t.routing == Routing::none) == t.hf.experts_field.empty());
      CHECK((t.routing == Routing::none) == (t.moe_layers == MoeLayers::none));
      if (t.routing == Routing::top_k || t.routing == Routing::top_k_shared)
        CHECK(t.ffn == Ffn::gated);  // the experts are gated MLPs (blocks/moe.cpp)
      if (t.routing == Routing::top1_capacity) CHECK(t.stack == Stack::encoder_decoder);
      // what only the decoder-only builders and the fused engine read
      if (t.sliding != Sliding::none || t.softcapping || t.sandwich_norms)
        CHECK(t.positions == Positions::rotary);
      if (t.fused_gate_up) CHECK(t.ffn == Ffn::gated);
      // a parallel block (one norm feeding attention and the MLP) is a decoder of one MLP
      if (t.parallel_residual) {
        CHECK(t.stack == Stack::decoder_only);
        CHECK(t.routing == Routing::none);
        CHECK_FALSE(t.sandwich_norms);
      }
    }
  }

  TEST_CASE("every row has a zoo model; every zoo model parses and builds") {
    std::set<int> seen;
    for (const ModelConfig& m : model_zoo()) {
      CAPTURE(m.id);
      const ArchitectureTraits& t = traits(m);
      seen.insert(int(t.id));
      // its row's model_type, or one no row reads: then its architectures class chose the row
      // (Kimi K2's kimi_k2, a DeepseekV3ForCausalLM)
      const bool type_of_a_row = std::ranges::any_of(
          architecture_table(),
          [&](const ArchitectureTraits& a) { return a.model_type == m.model_type; });
      CHECK((m.model_type == t.model_type || !type_of_a_row));
      CHECK(m.params() > 0);
      const Workload inference = make_workload(Mode::inference, 1, 8);
      const OpGraph g = build_op_graph(m, inference);
      CHECK(graph_kernel_count(g) > 0);
      // the config's formula and the graph's parameters agree within 2%
      const double graph_params = graph_param_count(g);
      CHECK(std::abs(graph_params / m.params() - 1) < 0.02);
      CHECK(graph_kernel_count(build_op_graph(m, make_workload(Mode::training, 1, 8))) > 0);
      if (t.stack == Stack::decoder_only) {
        for (Engine e : {Engine::eager, Engine::fused, Engine::compiled}) {
          CAPTURE(engine_name(e));
          CHECK(graph_kernel_count(build_engine_graph(m, make_workload(Mode::prefill, 1, 8), e)) >
                0);
          CHECK(graph_kernel_count(build_engine_graph(m, make_workload(Mode::decode, 1, 1, 9), e)) >
                0);
        }
      } else {
        const std::string err = test::graph_error(m, make_workload(Mode::prefill, 1, 8));
        CHECK(err.find(std::string(stack_name(t.stack))) != std::string::npos);
      }
    }
    for (const ArchitectureTraits& t : architecture_table()) {
      CAPTURE(t.model_type);
      CHECK(seen.count(int(t.id)) == 1);
    }
  }

  TEST_CASE("zoo configs parse by class name alone, to the same row") {
    for (const ModelConfig& m : model_zoo()) {
      CAPTURE(m.id);
      auto j =
          nlohmann::json::parse(test::read_file(test::repo_dir() + "/model_zoo/" + m.id + ".json"));
      j.erase("model_type");
      j["architectures"] = {std::string(traits(m).class_prefix) + "ForCausalLM"};
      const ModelConfig by_class = parse_model_config(j.dump(), m.id);
      CHECK(by_class.architecture == m.architecture);
      CHECK(by_class.params() == m.params());
    }
  }

  TEST_CASE("the supported lists in errors are the table's") {
    std::string all, decoders;
    for (const ArchitectureTraits& t : architecture_table()) {
      all += (all.empty() ? "" : ", ") + std::string(t.model_type);
      if (t.stack == Stack::decoder_only)
        decoders += (decoders.empty() ? "" : ", ") + std::string(t.model_type);
    }
    CHECK(supported_architectures() == all);
    CHECK(architecture_names(Stack::decoder_only) == decoders);
    try {
      parse_model_config(R"({"model_type": "not_a_model"})", "config.json");
      FAIL("an unknown model_type parsed");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("supported: " + all) != std::string::npos);
    }
    const std::string err =
        test::graph_error(find_model("bert-base"), make_workload(Mode::decode, 1, 1, 4));
    CHECK(err.find("needs a decoder-only model (" + decoders + ")") != std::string::npos);
  }
}
