// `--model ID [--model ID...] [--model-dir DIR]`: the learned models an evaluation forecasts
// with, each read from DIR (a `train --model ID --out DIR` output) where it holds the model's
// files, else the built-in ones (eval-kernels, eval-e2e).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "args.hpp"
#include "tilecast/gpu_spec.hpp"

namespace tilecast::cli {

// Registers the models for the vendors of `devices`; returns their ids (empty without
// --model).
std::vector<std::string> apply_model_flag(const Args& args,
                                          const std::map<std::string, GpuSpec>& devices);

}  // namespace tilecast::cli
