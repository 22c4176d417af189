// "Did you mean ...?" (tilecast/closest_names.hpp): a typo of a catalog, zoo, command or flag
// name gets its few closest names, a word like none of them gets none, and the GPU and model
// lookups say so in their errors.
#include "tilecast/closest_names.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tilecast/error.hpp"
#include "tilecast/gpu_catalog.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("closest_names") {
  const std::vector<std::string> names = {"forecast",  "serve", "capacity",
                                          "comm",      "plan",  "h100-sxm",
                                          "h100-pcie", "h200",  "a100-80gb-sxm"};

  TEST_CASE("a letter dropped, added, replaced or two swapped: the name meant, closest first") {
    CHECK(closest_names("forecst", names) == std::vector<std::string>{"forecast"});
    CHECK(closest_names("serves", names) == std::vector<std::string>{"serve"});
    CHECK(closest_names("pkan", names) == std::vector<std::string>{"plan"});
    CHECK(closest_names("capcaity", names) == std::vector<std::string>{"capacity"});
    // case, spaces, '-', '_' and '.' do not count (name_key)
    CHECK(closest_names("H100 SXN", names) == std::vector<std::string>{"h100-sxm"});
    CHECK(closest_names("h300", names) == std::vector<std::string>{"h200"});
    CHECK(closest_names("h10-sxm", names).front() == "h100-sxm");
  }

  TEST_CASE(
      "a name cut short gets the names it begins first, in the list's order; at most `most`") {
    CHECK(closest_names("h100", names) ==
          std::vector<std::string>{"h100-sxm", "h100-pcie", "h200"});
    CHECK(closest_names("h100", names, 1) == std::vector<std::string>{"h100-sxm"});
    CHECK(closest_names("comm", names).front() == "comm");
    // fewer than three characters is no prefix of anything
    CHECK(closest_names("fo", names).empty());
  }

  TEST_CASE("nothing near, nothing typed or something far too long: no suggestion") {
    CHECK(closest_names("xyzzy", names).empty());
    CHECK(closest_names("", names).empty());
    CHECK(closest_names(std::string(100000, 'a'), names).empty());
    CHECK(closest_names("serve", {}).empty());
  }

  TEST_CASE("or_list joins with commas and a last 'or'") {
    CHECK(or_list({}).empty());
    CHECK(or_list({"a"}) == "a");
    CHECK(or_list({"a", "b"}) == "a or b");
    CHECK(or_list({"a", "b", "c"}) == "a, b or c");
  }

  TEST_CASE("an unknown GPU or model names the close ones; one like none lists what there is") {
    CHECK(error_of([] { find_gpu("h100-sxn"); }).find("did you mean h100-sxm") !=
          std::string::npos);
    CHECK(error_of([] { find_gpu("zzzz"); }).find("run 'tilecast gpus'") != std::string::npos);
    const std::string typo = error_of([] { find_model("lama3-8b"); });
    CHECK(typo.find("did you mean llama3-8b") != std::string::npos);
    CHECK(typo.find("the zoo holds") == std::string::npos);
    // an owner's prefix is dropped before comparing (as the lookup drops it)
    CHECK(error_of([] { find_model("meta-llama/lama3-8b"); }).find("did you mean llama3-8b") !=
          std::string::npos);
    const std::string far = error_of([] { find_model("xyzzy"); });
    CHECK(far.find("the zoo holds: ") != std::string::npos);
    CHECK(far.find("gpt2") != std::string::npos);
  }
}
