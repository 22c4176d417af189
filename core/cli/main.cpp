// tilecast: forecast GPU kernel and model latencies from datasheet numbers.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "command.hpp"
#include "tilecast/error.hpp"
#include "tilecast/version.hpp"

namespace tilecast::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

void print_help() {
  std::printf("tilecast %.*s: GPU performance forecasts for deep learning\n\nusage:\n",
              static_cast<int>(kVersion.size()), kVersion.data());
  std::vector<const Command*> sorted;
  for (const auto& c : commands()) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(),
            [](const Command* a, const Command* b) { return a->name < b->name; });
  for (const Command* p : sorted) {
    const Command& c = *p;
    std::printf("  tilecast %-13s %s\n      %s\n", c.name.c_str(), c.usage.c_str(),
                c.summary.c_str());
  }
}
}  // namespace

bool register_command(Command command) {
  registry().push_back(std::move(command));
  return true;
}

const std::vector<Command>& commands() { return registry(); }

}  // namespace tilecast::cli

int main(int argc, char** argv) {
  using namespace tilecast::cli;
  if (argc < 2 || std::string(argv[1]) == "help" || std::string(argv[1]) == "--help") {
    print_help();
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    std::printf("%.*s\n", static_cast<int>(tilecast::kVersion.size()), tilecast::kVersion.data());
    return 0;
  }
  const std::string name = argv[1];
  for (const auto& c : commands()) {
    if (c.name != name) continue;
    try {
      Args args(std::vector<std::string>(argv + 2, argv + argc), c.flags, c.switches);
      return c.run(args);
    } catch (const tilecast::Error& e) {
      std::fprintf(stderr, "tilecast %s: error: %s\n", name.c_str(), e.what());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tilecast %s: internal error: %s\n", name.c_str(), e.what());
      return 3;
    }
  }
  std::fprintf(stderr, "tilecast: unknown command '%s'; run 'tilecast help'\n", name.c_str());
  return 2;
}
