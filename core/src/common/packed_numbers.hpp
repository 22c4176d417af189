// Decodes an embedded file stored with its decimal numbers packed (core/cmake/embed_files.cmake
// writes the format) back to its original text, byte for byte: the trained weights' numbers
// take 21% fewer gzipped bytes in the WASM so, and parse to the same doubles as the text does
// because they are the same text.
#pragma once

#include <string>
#include <string_view>

namespace tilecast::embedded {

// Throws Error naming `path` when `packed` is not a well-formed packing.
std::string unpack_numbers(std::string_view packed, std::string_view path);

}  // namespace tilecast::embedded
