#include "common/packed_numbers.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tilecast/error.hpp"

namespace tilecast::embedded {
namespace {

constexpr char kMarker = '\x01';  // a number in the skeleton (never in JSON text)
constexpr int kMaxDigits = 18;
// Bytes that hold any integer of n decimal digits, n = 0..18 (as embed_files.cmake's table).
constexpr int kDigitBytes[kMaxDigits + 1] = {0, 1, 1, 2, 2, 3, 3, 3, 4, 4,
                                             5, 5, 5, 6, 6, 7, 7, 8, 8};

struct Reader {
  std::string_view data;
  std::string_view path;
  std::size_t at = 0;

  [[noreturn]] void fail() const {
    throw Error("embedded file '" + std::string(path) + "': packed numbers are malformed at byte " +
                std::to_string(at));
  }
  std::string_view take(std::size_t n) {
    if (n > data.size() - at) fail();
    at += n;
    return data.substr(at - n, n);
  }
  std::uint64_t le(int bytes) {
    const std::string_view b = take(static_cast<std::size_t>(bytes));
    std::uint64_t v = 0;
    for (int j = bytes - 1; j >= 0; --j) v = v << 8 | static_cast<unsigned char>(b[j]);
    return v;
  }
};

struct Shape {
  std::string_view text;  // '#' where the significant digits go
  int digits = 0;
};

}  // namespace

std::string unpack_numbers(std::string_view packed, std::string_view path) {
  Reader r{packed, path};
  std::vector<Shape> shapes(r.le(1));
  for (Shape& s : shapes) {
    s.text = r.take(r.le(1));
    for (char c : s.text) s.digits += c == '#';
    if (s.digits > kMaxDigits) r.fail();
  }
  const std::uint64_t count = r.le(4);
  const std::string_view skeleton = r.take(r.le(4));
  const std::string_view index = r.take(count);
  std::vector<std::uint64_t> value(count, 0);
  std::vector<unsigned char> bytes(count);  // of each number's digits
  std::size_t text_bytes = skeleton.size() - std::min<std::size_t>(count, skeleton.size());
  for (std::size_t k = 0; k < count; ++k) {
    const auto shape = static_cast<unsigned char>(index[k]);
    if (shape >= shapes.size()) r.fail();
    bytes[k] = static_cast<unsigned char>(kDigitBytes[shapes[shape].digits]);
    text_bytes += shapes[shape].text.size();
  }
  // Byte plane j holds byte j (little-endian) of every number that has one.
  for (int j = 0; j < 8; ++j) {
    std::size_t in_plane = 0;
    for (std::size_t k = 0; k < count; ++k) in_plane += bytes[k] > j;
    const auto* plane = reinterpret_cast<const unsigned char*>(r.take(in_plane).data());
    for (std::size_t k = 0; k < count; ++k)
      if (bytes[k] > j) value[k] |= std::uint64_t(*plane++) << (8 * j);
  }
  if (r.at != packed.size()) r.fail();

  // The text, written into a buffer of its final size (this runs once per file at start-up,
  // in the WebAssembly build's slowest code tier too).
  std::string out(text_bytes, '\0');
  char* o = out.data();
  char* const o_end = o + out.size();
  std::size_t k = 0;
  char digits[kMaxDigits];
  for (std::size_t at = 0; at < skeleton.size();) {
    const std::size_t next = std::min(skeleton.find(kMarker, at), skeleton.size());
    if (std::size_t(o_end - o) < next - at) r.fail();
    o = std::copy(skeleton.data() + at, skeleton.data() + next, o);  // up to the next number
    if (next == skeleton.size()) break;
    at = next + 1;
    if (k == count) r.fail();
    const Shape& sh = shapes[static_cast<unsigned char>(index[k])];
    std::uint64_t v = value[k++];
    for (int d = sh.digits - 1; d >= 0; --d, v /= 10) digits[d] = static_cast<char>('0' + v % 10);
    if (v != 0) r.fail();  // more digits than the shape holds
    if (std::size_t(o_end - o) < sh.text.size()) r.fail();
    int d = 0;
    for (char t : sh.text) *o++ = t == '#' ? digits[d++] : t;
  }
  if (o != o_end) r.fail();
  if (k != count) r.fail();
  return out;
}

}  // namespace tilecast::embedded
