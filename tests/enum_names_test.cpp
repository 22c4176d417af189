// Enum names written once (tilecast/enum_names.hpp): every table parses each of its names to
// its value and prints the value's first name back; an unknown word's error lists exactly the
// table's names; the response schemas (core/schema/) allow exactly the tables' names.
#include "tilecast/enum_names.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/gpu_spec.hpp"
#include "tilecast/megatron.hpp"
#include "tilecast/serving.hpp"

using namespace tilecast;

namespace {

// The names after "allowed: " in a message, aliases included ("a (or b, c), d" -> a, b, c, d).
std::vector<std::string> listed_names(const std::string& message) {
  const std::size_t at = message.find("allowed: ");
  REQUIRE(at != std::string::npos);
  std::vector<std::string> names;
  std::string word;
  for (char c : message.substr(at + 9) + ",") {
    if (c == ',' || c == '(' || c == ')') {
      if (word.rfind("or ", 0) == 0) word = word.substr(3);
      if (!word.empty()) names.push_back(word);
      word.clear();
    } else if (c != ' ' || !word.empty()) {
      word += c;
    }
  }
  for (auto& n : names)
    while (!n.empty() && n.back() == ' ') n.pop_back();
  return names;
}

template <class E>
std::vector<std::string> table_names(EnumNames<E> names) {
  std::vector<std::string> v;
  for (const auto& n : names) v.emplace_back(n.name);
  return v;
}

// Each name round-trips, and an unknown word's error lists exactly the table, in its order
// (a value's aliases right after its name).
template <class E, class Parse, class Name>
void check_table(EnumNames<E> names, Parse parse, Name name) {
  REQUIRE(!names.empty());
  std::vector<std::string> expected;
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(parse(names[i].name) == names[i].value);
    CHECK(name(names[i].value) == enum_name(names, names[i].value));
    if (!is_primary_name(names, i)) continue;
    CHECK(name(names[i].value) == names[i].name);
    expected.emplace_back(names[i].name);
    for (std::size_t j = i + 1; j < names.size(); ++j)
      if (names[j].value == names[i].value) expected.emplace_back(names[j].name);
  }
  std::string message;
  try {
    parse("no-such-name");
  } catch (const Error& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("'no-such-name'") != std::string::npos);
  CHECK(listed_names(message) == expected);
}

// The "enum" of a schema property, by a JSON pointer into a file of core/schema/.
std::set<std::string> schema_enum(const std::string& file, const std::string& pointer) {
  const auto j = nlohmann::json::parse(test::read_file(test::repo_dir() + "/core/schema/" + file));
  std::set<std::string> s;
  for (const auto& v : j.at(nlohmann::json::json_pointer(pointer)).at("enum"))
    s.insert(v.get<std::string>());
  return s;
}

template <class E>
std::set<std::string> primary_names(EnumNames<E> names) {
  std::set<std::string> s;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (is_primary_name(names, i)) s.insert(std::string(names[i].name));
  return s;
}

template <class E, std::size_t N>
std::set<std::string> names_of(EnumNames<E> names, const E (&values)[N]) {
  std::set<std::string> s;
  for (E v : values) s.insert(std::string(enum_name(names, v)));
  return s;
}

}  // namespace

TEST_SUITE("enum_names") {
  TEST_CASE("every table round-trips its names and an unknown word lists exactly them") {
    check_table(dtype_names(), parse_dtype, dtype_name);
    check_table(mode_names(), parse_mode, mode_name);
    check_table(engine_names(), parse_engine, engine_name);
    check_table(predictor_names(), parse_predictor, predictor_name);
    check_table(recompute_names(), parse_recompute, recompute_name);
    check_table(schedule_names(), parse_schedule, schedule_name);
    check_table(collective_names(), parse_collective, collective_name);
    check_table(comm_algorithm_names(), parse_comm_algorithm, comm_algorithm_name);
    auto parse_unit = [](std::string_view w) { return parse_enum(unit_names(), w, "a unit"); };
    check_table(unit_names(), parse_unit, unit_name);
    auto parse_link = [](std::string_view w) {
      return parse_enum(link_class_names(), w, "a link");
    };
    check_table(link_class_names(), parse_link, link_class_name);
    auto parse_family = [](std::string_view w) {
      return parse_enum(comm_family_names(), w, "a family");
    };
    check_table(comm_family_names(), parse_family, comm_family_name);
    auto parse_topology = [](std::string_view w) {
      return parse_enum(topology_names(), w, "a topology");
    };
    check_table(topology_names(), parse_topology, topology_name);
    check_table(weight_format_names(), parse_weight_format, weight_format_name);
    check_table(decode_attention_names(), parse_decode_attention, decode_attention_name);
    check_table(attention_kernel_names(), parse_attention_kernel, attention_kernel_name);
  }

  TEST_CASE("aliases are listed after their name; help lists names only") {
    CHECK(allowed_enum_names(mode_names()) ==
          "training (or train), inference (or inf), prefill, decode");
    CHECK(enum_names_joined(mode_names(), "|") == "training|inference|prefill|decode");
    CHECK(enum_names_of(dtype_names(), kModelPrecisions, ", ") == "fp32, fp16, bf16");
  }

  TEST_CASE("file and request fields list the table's names") {
    // a system file's topology, a GPU spec's peak unit, a model request's precision
    std::string message;
    try {
      parse_system_spec(R"({"id":"x","name":"x","gpu":"a100-80gb-sxm","gpus_per_node":8,
        "topology":"ring","source":"test"})",
                        "test system");
    } catch (const Error& e) {
      message = e.what();
    }
    CHECK(listed_names(message) == table_names(topology_names()));
    message = test::catalog_spec_error(R"(, "peak_tflops": {"fp16": {"matrix": 1}})");
    CHECK(listed_names(message) == table_names(unit_names()));
  }

  TEST_CASE("the response schemas allow exactly the tables' names") {
    CHECK(schema_enum("common.schema.json", "/definitions/Precision") ==
          primary_names(dtype_names()));
    CHECK(schema_enum("common.schema.json", "/definitions/ModelPrecision") ==
          names_of(dtype_names(), kModelPrecisions));
    CHECK(schema_enum("common.schema.json", "/definitions/ServingPrecision") ==
          names_of(dtype_names(), kServingPrecisions));
    CHECK(schema_enum("common.schema.json", "/definitions/WeightFormat") ==
          primary_names(weight_format_names()));
    CHECK(schema_enum("common.schema.json", "/definitions/DecodeAttention") ==
          primary_names(decode_attention_names()));
    CHECK(schema_enum("common.schema.json", "/definitions/Predictor") ==
          primary_names(predictor_names()));
    CHECK(schema_enum("common.schema.json", "/definitions/Mode") == primary_names(mode_names()));
    CHECK(schema_enum("common.schema.json", "/definitions/Recompute") ==
          primary_names(recompute_names()));
    CHECK(schema_enum("common.schema.json", "/definitions/Schedule") ==
          primary_names(schedule_names()));
    CHECK(schema_enum("common.schema.json", "/definitions/AttentionKernel") ==
          primary_names(attention_kernel_names()));
    CHECK(schema_enum("model_forecast.schema.json", "/properties/engine") ==
          names_of(engine_names(), kModelEngines));
    CHECK(schema_enum("collective_forecast.schema.json", "/properties/collective") ==
          primary_names(collective_names()));
    CHECK(schema_enum("collective_forecast.schema.json", "/properties/link") ==
          primary_names(link_class_names()));
    CHECK(schema_enum("system.schema.json", "/properties/topology") ==
          primary_names(topology_names()));
    CHECK(schema_enum("model_forecast.schema.json", "/definitions/Finetune/properties/method") ==
          names_of(finetune_method_names(), kFinetuneMethods));
    CHECK(schema_enum("model_forecast.schema.json", "/definitions/Finetune/properties/targets") ==
          primary_names(lora_target_names()));
    std::set<std::string> memory_types;
    for (std::string_view t : memory_type_names()) memory_types.insert(std::string(t));
    CHECK(schema_enum("gpu.schema.json", "/properties/memory_type") == memory_types);
  }
}
