// Speed at the limits: every numeric request field at its validator's maximum, alone and all
// together (tests/support/request_maxima.hpp, the same list ctest work_budget checks against the
// work budget's estimate), each call timed natively on one core: wall and CPU time of one call
// (the second; the first loads the catalog and weights). Prints the slowest ten and whether the
// slowest answers within 1 s (issue 33's target).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "support/request_maxima.hpp"

using tilecast::test::LimitCase;

namespace {

struct Timed {
  std::string name;
  double wall_s = 0, cpu_s = 0;
  bool answered = false;
};

Timed time_one(const LimitCase& c) {
  const std::string text = c.request.dump();
  Timed t{c.name};
  for (int pass = 0; pass < 2; ++pass) {
    const std::clock_t cpu0 = std::clock();
    const auto wall0 = std::chrono::steady_clock::now();
    try {
      c.call(text);
      t.answered = true;
    } catch (const tilecast::Error&) {
      t.answered = false;
    }
    t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    t.cpu_s = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
  }
  return t;
}

}  // namespace

int main() {
  std::vector<std::string> unknown;
  const std::vector<LimitCase> cases = tilecast::test::request_maxima(unknown);
  std::vector<Timed> timed;
  double total = 0;
  for (const LimitCase& c : cases) {
    timed.push_back(time_one(c));
    total += timed.back().wall_s;
  }
  std::sort(timed.begin(), timed.end(),
            [](const Timed& a, const Timed& b) { return a.wall_s > b.wall_s; });
  std::printf("%zu requests at their fields' maxima, %.2f s in all (second call of each)\n",
              cases.size(), total);
  std::printf("slowest (wall s, CPU s, answer):\n");
  for (std::size_t i = 0; i < timed.size() && i < 10; ++i)
    std::printf("  %8.3f %8.3f  %-8s %s\n", timed[i].wall_s, timed[i].cpu_s,
                timed[i].answered ? "forecast" : "error", timed[i].name.c_str());
  const bool met = !timed.empty() && timed.front().wall_s <= 1.0;
  std::printf("  target: the slowest <= 1 s: %s\n", met ? "met" : "NOT met");
  return 0;
}
