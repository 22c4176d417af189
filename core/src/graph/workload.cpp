// The workload words: the mode names, their one parser (shared by the CLI and the
// JSON API), and the query/key lengths each mode implies.
#include <string>

#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast {

namespace {

constexpr EnumName<Mode> kModes[] = {{"training", Mode::training},   {"train", Mode::training},
                                     {"inference", Mode::inference}, {"inf", Mode::inference},
                                     {"prefill", Mode::prefill},     {"decode", Mode::decode}};

}  // namespace

EnumNames<Mode> mode_names() { return kModes; }

std::string_view mode_name(Mode m) { return enum_name(mode_names(), m); }

Mode parse_mode(std::string_view word) { return parse_enum(mode_names(), word, "a mode"); }

Workload make_workload(Mode mode, std::int64_t batch, std::int64_t seq, std::int64_t cache_len) {
  Workload w;
  w.mode = mode;
  w.batch = batch;
  w.query_len = mode == Mode::decode ? 1 : seq;
  // decode: the new token attends to the cache and to itself
  w.context_len = mode == Mode::decode ? (cache_len > 0 ? cache_len : seq) + 1 : seq;
  return w;
}

}  // namespace tilecast
