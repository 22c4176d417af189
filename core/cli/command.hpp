// Subcommands register themselves here; main() dispatches by name.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "args.hpp"

namespace tilecast::cli {

struct Command {
  std::string name;
  std::string usage;                    // flags, shown by `tilecast help`
  std::string summary;                  // one line
  std::vector<std::string> flags;       // flags that take a value
  std::vector<std::string> switches;    // flags without a value
  std::function<int(const Args&)> run;  // returns the exit code
};

bool register_command(Command command);
const std::vector<Command>& commands();

}  // namespace tilecast::cli
