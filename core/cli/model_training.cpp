#include "model_training.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "command.hpp"
#include "tilecast/error.hpp"
#include "tilecast/learned_models.hpp"

namespace tilecast::cli {
namespace {

namespace fs = std::filesystem;

}  // namespace

int run_model_training(const Args& args) {
  const std::string id = args.get("model");
  const std::string out_dir = args.get("out");
  std::vector<std::string> words =
      model_training_recipe(id, args.get("data", "../shared/data"), out_dir);
  if (args.has("recipe")) {  // the words, one per line, not run
    for (const std::string& w : words) std::printf("%s\n", w.c_str());
    return 0;
  }
  if (!out_dir.empty()) fs::create_directories(out_dir);
  // The user's other arguments follow the recipe's (--model, --data and --out are consumed).
  const std::vector<std::string>& given = args.argv();
  for (std::size_t i = 0; i < given.size(); ++i) {
    const std::string& a = given[i];
    bool consumed = false;
    if (a == "--recipe") continue;
    for (const char* f : {"--model", "--data", "--out"}) {
      if (a == f) {
        consumed = true;
        ++i;  // and its value
      } else if (a.rfind(std::string(f) + "=", 0) == 0) {
        consumed = true;
      }
    }
    if (!consumed) words.push_back(a);
  }
  const std::string command = words.front();
  words.erase(words.begin());
  for (const Command& c : commands())
    if (c.name == command) {
      std::string shown = "tilecast " + command;
      for (const std::string& w : words) shown += " '" + w + "'";
      std::fprintf(stderr, "train --model %s: %s\n", id.c_str(), shown.c_str());
      return c.run(Args(words, c.flags, c.switches));
    }
  throw Error("train: model '" + id + "' names command '" + command + "', which is no command");
}

}  // namespace tilecast::cli
