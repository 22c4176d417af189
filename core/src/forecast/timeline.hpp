// A replay of one GPU's step on several streams with dependencies. PyTorch eager
// runs a host thread that dispatches kernels and device streams that execute them
// in order, asynchronously (compute today; communication comes with data, tensor
// and pipeline parallelism). Each event runs on one stream after that stream's
// previous event and after every event it depends on; nothing else orders events,
// so work on different streams overlaps. Events are plain values (no event table
// is kept), which keeps a replay of tens of thousands of launches allocation-free.
#pragma once

#include <algorithm>
#include <array>
#include <initializer_list>

#include "forecast/work_budget.hpp"

namespace tilecast::detail {

enum class Stream { host, compute, communication };
inline constexpr int kStreamCount = 3;

// When an event ran: [start_ms, finish_ms) from the start of the replay.
struct Event {
  Stream stream = Stream::host;
  double start_ms = 0;
  double finish_ms = 0;
};

class Timeline {
 public:
  // Runs `duration_ms` of work on `stream` once the stream is free and every
  // event in `after` has finished.
  Event run(Stream stream, double duration_ms, std::initializer_list<Event> after = {}) {
    return run_from(stream, 0, duration_ms, after);
  }

  // A kernel launch: the host spends `launch_ms` dispatching it, then `stream`
  // executes it for `exec_ms` (after the dispatch and after `after`). Returns the
  // execution event.
  Event launch(double launch_ms, double exec_ms, Stream stream = Stream::compute,
               std::initializer_list<Event> after = {}) {
    count_work(1);
    const Event dispatched = run(Stream::host, launch_ms);
    return run_from(stream, dispatched.finish_ms, exec_ms, after);
  }

  // When the stream's last event finishes (0 before its first).
  double ready_ms(Stream stream) const { return ready_ms_[static_cast<int>(stream)]; }
  // When the last event on any stream finishes.
  double finish_ms() const { return *std::max_element(ready_ms_.begin(), ready_ms_.end()); }

 private:
  Event run_from(Stream stream, double earliest_ms, double duration_ms,
                 std::initializer_list<Event> after) {
    double& ready = ready_ms_[static_cast<int>(stream)];
    double start_ms = std::max(ready, earliest_ms);
    for (const Event& e : after) start_ms = std::max(start_ms, e.finish_ms);
    const Event e{stream, start_ms, start_ms + duration_ms};
    ready = e.finish_ms;
    return e;
  }

  std::array<double, kStreamCount> ready_ms_{};
};

}  // namespace tilecast::detail
