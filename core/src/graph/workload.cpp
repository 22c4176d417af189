// The workload words: the mode names, their one parser (shared by the CLI and the
// JSON API), and the query/key lengths each mode implies.
#include <string>

#include "tilecast/error.hpp"
#include "tilecast/op_graph.hpp"

namespace tilecast {

std::string_view mode_name(Mode m) {
  switch (m) {
    case Mode::training: return "training";
    case Mode::inference: return "inference";
    case Mode::prefill: return "prefill";
    case Mode::decode: return "decode";
  }
  return "?";
}

Mode parse_mode(std::string_view word) {
  if (word == "training" || word == "train") return Mode::training;
  if (word == "inference" || word == "inf") return Mode::inference;
  if (word == "prefill") return Mode::prefill;
  if (word == "decode") return Mode::decode;
  throw Error("'" + std::string(word) +
              "' is not a mode; allowed: training (or train), inference (or inf), prefill, decode");
}

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
