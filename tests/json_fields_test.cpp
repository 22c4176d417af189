// The validated JSON field readers (common/json_fields.hpp): each error names the origin, the
// field and what is allowed, the allowed words taken from the list the caller reads with.
#include "common/json_fields.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/helpers.hpp"

using tilecast::detail::check_known_fields;
using tilecast::detail::choice_field;
using tilecast::detail::integer_field;
using tilecast::test::error_of;

TEST_SUITE("json_fields") {
  TEST_CASE("choice_field returns an allowed word and lists them for another") {
    const auto j = nlohmann::json::parse(R"({"form": "bridge", "bad": "cable", "n": 3})");
    CHECK(choice_field(j, "form", "sys.json", {"bridge", "baseboard"}) == "bridge");
    CHECK(error_of([&] {
            (void)choice_field(j, "bad", "sys.json", {"bridge", "baseboard"});
          }) == "sys.json: field 'bad' is 'cable'; allowed: bridge, baseboard");
    CHECK(error_of([&] {
            (void)choice_field(j, "n", "sys.json", {"a"});
          }).find("field 'n' must be a string") != std::string::npos);
    // absent: required names the field, optional gives the caller's default (empty)
    CHECK(error_of([&] { (void)choice_field(j, "gone", "sys.json", {"a"}); }) ==
          "sys.json: field 'gone' is missing");
    CHECK(choice_field(j, "gone", "sys.json", {"a"}, false).empty());
  }

  TEST_CASE("check_known_fields names the unknown key and lists the known ones") {
    const auto ok = nlohmann::json::parse(R"({"method": "lora", "rank": 8})");
    CHECK_NOTHROW(check_known_fields(ok, "finetune", {"method", "rank", "targets"}));
    const auto typo = nlohmann::json::parse(R"({"method": "lora", "rnak": 8})");
    CHECK(error_of([&] {
            check_known_fields(typo, "finetune", {"method", "rank", "targets"});
          }) == "finetune: unknown field 'rnak'; allowed: method, rank, targets");
    // a key with an ANSI escape, or a pasted page of text, is shown harmless and short
    nlohmann::json odd = nlohmann::json::object();
    odd["\x1b[31mred"] = 1;
    CHECK(error_of([&] { check_known_fields(odd, "sizes", {"hidden"}); }) ==
          "sizes: unknown field '?[31mred'; allowed: hidden");
    nlohmann::json long_key = nlohmann::json::object();
    long_key[std::string(5000, 'k')] = 1;
    CHECK(error_of([&] { check_known_fields(long_key, "sizes", {"hidden"}); }) ==
          "sizes: unknown field '" + std::string(40, 'k') + "...'; allowed: hidden");
  }

  TEST_CASE("integer_field names the range it allows") {
    const auto j = nlohmann::json::parse(R"({"links": 65, "lanes": 1.5})");
    CHECK(error_of([&] {
            (void)integer_field(j, "links", "gpu.json", 1, 64);
          }).find("gpu.json: field 'links'") != std::string::npos);
    CHECK(error_of([&] { (void)integer_field(j, "lanes", "gpu.json", 1, 32); }).find("'lanes'") !=
          std::string::npos);
  }
}
