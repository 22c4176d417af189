// tilecast: forecast GPU kernel and model latencies from datasheet numbers.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "tilecast/closest_names.hpp"
#include "tilecast/error.hpp"
#include "tilecast/version.hpp"

namespace tilecast::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

void print_usage(const Command& c) {
  std::printf("  tilecast %-13s %s\n      %s\n", c.name.c_str(), c.usage.c_str(),
              c.summary.c_str());
}

// `tilecast help COMMAND`, `tilecast COMMAND --help`
int print_command_help(const Command& c) {
  std::printf("usage:\n");
  print_usage(c);
  return 0;
}

void print_help() {
  std::printf("tilecast %.*s: GPU performance forecasts for deep learning\n\nusage:\n",
              static_cast<int>(kVersion.size()), kVersion.data());
  std::vector<const Command*> sorted;
  for (const auto& c : commands()) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(),
            [](const Command* a, const Command* b) { return a->name < b->name; });
  for (const Command* p : sorted) print_usage(*p);
}

const Command* find_command(const std::string& name) {
  for (const auto& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

// `tilecast COMMAND --help` (or -h) anywhere among its arguments
bool asks_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (std::string_view a = argv[i]; a == "--help" || a == "-h") return true;
  return false;
}

int unknown_command(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& c : commands()) names.push_back(c.name);
  const std::string close = tilecast::did_you_mean(name, names);
  const std::string hint = close.empty() ? "" : "; " + close;
  std::fprintf(stderr, "tilecast: unknown command '%s'%s (run 'tilecast help')\n", name.c_str(),
               hint.c_str());
  return 2;
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
  const bool help =
      argc >= 2 && (std::string_view(argv[1]) == "help" || std::string_view(argv[1]) == "--help" ||
                    std::string_view(argv[1]) == "-h");
  if (help && argc >= 3) {  // tilecast help COMMAND
    const Command* c = find_command(argv[2]);
    return c ? print_command_help(*c) : unknown_command(argv[2]);
  }
  if (argc < 2 || help) {
    print_help();
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    std::printf("%.*s\n", static_cast<int>(tilecast::kVersion.size()), tilecast::kVersion.data());
    return 0;
  }
  const std::string name = argv[1];
  const Command* c = find_command(name);
  if (!c) return unknown_command(name);
  if (asks_help(argc, argv)) return print_command_help(*c);
  try {
    Args args(std::vector<std::string>(argv + 2, argv + argc), c->flags, c->switches);
    return c->run(args);
  } catch (const tilecast::Error& e) {
    std::fprintf(stderr, "tilecast %s: error: %s\n", name.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilecast %s: internal error: %s\n", name.c_str(), e.what());
    return 3;
  }
}
