// The engine words and the one place an engine selects its graph builder: eager is the
// Hugging Face module graph (build_op_graph), fused the optimised serving engine (fused.cpp).
#include <string>

#include "graph/engines/engines.hpp"
#include "tilecast/error.hpp"

namespace tilecast {

std::string_view engine_name(Engine e) { return e == Engine::eager ? "eager" : "fused"; }

Engine parse_engine(std::string_view word) {
  if (word == "fused" || word == "optimised" || word == "optimized") return Engine::fused;
  if (word == "eager") return Engine::eager;
  throw Error("'" + std::string(word) +
              "' is not an engine; allowed: fused (or optimised), eager (plain PyTorch)");
}

OpGraph build_engine_graph(const ModelConfig& model, const Workload& w, Engine engine) {
  switch (engine) {
    case Engine::eager: return build_op_graph(model, w);
    case Engine::fused: return detail::build_fused_graph(model, w);
  }
  return build_op_graph(model, w);
}

}  // namespace tilecast
