// The vidur compute layout on disk: every mlp.csv under a folder (one GPU's
// <org>/<model>/mlp.csv), in path order.
#pragma once

#include <string>
#include <vector>

namespace tilecast::cli {

struct VidurFile {
  std::string path;      // as found
  std::string relative;  // to the folder, e.g. "meta-llama/Llama-2-7b-hf/mlp.csv"
};

// Throws Error when `dir` is not a folder or holds no mlp.csv.
std::vector<VidurFile> vidur_mlp_files(const std::string& dir);

}  // namespace tilecast::cli
