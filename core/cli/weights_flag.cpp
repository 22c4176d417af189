#include "weights_flag.hpp"

#include <string>

#include "io.hpp"
#include "tilecast/learned_weights.hpp"

namespace tilecast::cli {

void apply_weights_flag(const Args& args) {
  if (!args.has("weights")) return;
  const std::string dir = args.get("weights");
  const std::string weights = read_text_file(dir + "/kernel_weights.json");
  use_learned_weights(weights, read_text_file(dir + "/tile_table.json"), dir);
}

}  // namespace tilecast::cli
