// libFuzzer harness over raw request text: the first byte picks the API function
// (api_calls.hpp), the rest is its JSON request. Seeds: tests/fuzz/corpus/raw (made by
// make_corpus.py from the zoo, catalog, systems and share-link parameters).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api_calls.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto& call = tilecast::fuzz::kApiCalls[data[0] % tilecast::fuzz::kApiCallCount];
  tilecast::fuzz::call_and_check(
      call, std::string_view(reinterpret_cast<const char*>(data + 1), size - 1));
  return 0;
}
