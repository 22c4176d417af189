// `tilecast train --model ID`: a built-in model remade by the recipe its manifest states
// (core/data/models/<id>/manifest.json, field "train"), so the list of a model's training
// inputs and flags is written once, in its folder, for the scripts, the tests and the CLI.
#pragma once

#include "args.hpp"

namespace tilecast::cli {

// Runs model `args.get("model")`'s recipe: `--data DIR` (default ../shared/data) and `--out DIR`
// (default the model folders) fill it, and every other argument given (e.g. --hold-out NAME,
// --epochs N) is passed on to the recipe's command. Returns its exit code.
int run_model_training(const Args& args);

}  // namespace tilecast::cli
