// The multi-stream replay: streams run their events in order, dependencies delay
// an event across streams, and a kernel launch is a host dispatch followed by
// execution on a device stream (the whole-model replay).
#include "forecast/timeline.hpp"

#include <doctest/doctest.h>

using tilecast::detail::Event;
using tilecast::detail::Stream;
using tilecast::detail::Timeline;

TEST_SUITE("timeline") {
  TEST_CASE("events on one stream run back to back") {
    Timeline t;
    const Event a = t.run(Stream::compute, 2);
    const Event b = t.run(Stream::compute, 3);
    CHECK(a.start_ms == 0);
    CHECK(a.finish_ms == 2);
    CHECK(b.start_ms == 2);
    CHECK(b.finish_ms == 5);
    CHECK(t.ready_ms(Stream::compute) == 5);
    CHECK(t.ready_ms(Stream::communication) == 0);
  }

  TEST_CASE("communication waits for compute, and later compute waits for it") {
    Timeline t;
    const Event grad = t.run(Stream::compute, 4);                   // 0..4
    const Event other = t.run(Stream::compute, 1);                  // 4..5, overlaps
    const Event reduce = t.run(Stream::communication, 10, {grad});  // 4..14
    const Event more = t.run(Stream::compute, 2);                   // 5..7, independent
    const Event update = t.run(Stream::compute, 3, {reduce});       // 14..17
    CHECK(reduce.start_ms == 4);
    CHECK(reduce.finish_ms == 14);
    CHECK(other.finish_ms == 5);
    CHECK(more.start_ms == 5);  // not delayed by the communication
    CHECK(update.start_ms == 14);
    CHECK(update.finish_ms == 17);
    CHECK(t.finish_ms() == 17);
    // an event with several dependencies starts after the last of them
    const Event both = t.run(Stream::communication, 1, {update, more});
    CHECK(both.start_ms == 17);
  }

  TEST_CASE("launches: the host's dispatch cost hides behind long kernels") {
    Timeline t;
    // Three kernels of 0.01 ms launch cost: a long one keeps the GPU busy while
    // the host dispatches the next; a run of short ones leaves it waiting.
    const Event k1 = t.launch(0.01, 1.0);  // host 0..0.01, gpu 0.01..1.01
    const Event k2 = t.launch(0.01, 0.001);
    CHECK(k1.start_ms == 0.01);
    CHECK(k2.start_ms == k1.finish_ms);  // dispatched at 0.02, long before the GPU is free
    CHECK(t.ready_ms(Stream::host) == doctest::Approx(0.02));
    Timeline s;
    s.launch(0.01, 0.001);
    const Event short2 = s.launch(0.01, 0.001);
    CHECK(short2.start_ms == doctest::Approx(0.02));  // waits for its dispatch
  }
}
