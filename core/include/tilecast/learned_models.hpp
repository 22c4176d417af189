// Learned kernel models given as text (a `tilecast train` output pair) rather than embedded:
// registered for one vendor's FP32 kernels, ahead of the embedded ones, so that a trained-but-
// not-embedded model (e.g. one GPU held out, scripts/eval_amd_cross_gpu.sh) can be evaluated.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilecast/kernel.hpp"

namespace tilecast {

// Parses the weights and GEMM tile table (throws tilecast::Error naming `origin`) and makes
// them the FP32 model of `vendor`'s GPUs for the rest of the process, GEMMs included (ahead of
// an embedded analytic GEMM model).
void register_fp32_weights(std::string_view vendor, std::string_view weights_json,
                           std::string_view tile_table_json, std::string_view origin);

// Parses an analytic AMD GEMM model (`tilecast train-amd-gemm` output), the learned weights and
// the tile table trained with it (throws tilecast::Error naming `origin`) and makes them the FP32
// GEMM model of AMD GPUs for the rest of the process: the net for the table's measured GPUs,
// the analytic model for the others.
void register_amd_gemm_model(std::string_view model_json, std::string_view weights_json,
                             std::string_view tile_table_json, std::string_view origin);

// Makes built-in model `id` (core/data/models/<id>/manifest.json) the model of every kernel it
// serves on `vendors`' GPUs for the rest of the process, ahead of every other model
// (`tilecast eval-kernels --model ID`). Its files come from `read_file(name)` when that returns
// text (a `tilecast train --model ID --out DIR` output; the model it uses is read the same way
// when all its files are there), else the built-in ones. Throws Error naming an unknown id
// (with the known ones) or a malformed file.
void use_model(std::string_view id, const std::vector<std::string>& vendors,
               const std::function<std::optional<std::string>(const std::string& file)>& read_file);
// The ids of the built-in models, comma-separated (for messages).
std::string model_ids();
// Whether built-in model `id` serves a kernel of this data type and op on a `vendor` GPU.
bool model_serves(std::string_view id, std::string_view vendor, const Kernel& kernel);

// How built-in model `id` is remade: its manifest's "train" recipe (or, where the manifest
// names another model there, that one's), a CLI command and its arguments, with {data:SET} ->
// data_dir/SET, {out} -> the model's folder, {out:ID} -> model ID's (out_dir when not empty,
// else core/data/models/ID), and each brace list {a,b,...} expanded as a shell does, the first
// outermost ("{x,y}/{1,2}" -> x/1 x/2 y/1 y/2). `tilecast train --model ID` runs it; the tests
// read a model's training inputs from it. Throws Error for an unknown id or no recipe.
std::vector<std::string> model_training_recipe(std::string_view id, const std::string& data_dir,
                                               const std::string& out_dir);

}  // namespace tilecast
