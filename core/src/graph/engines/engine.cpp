// The engine words and the one place an engine selects its graph builder: eager is the
// Hugging Face module graph (build_op_graph), fused the optimised serving engine (fused.cpp),
// compiled the eager graph with torch.compile's vector-chain fusion (compiled.cpp).
#include <string>

#include "graph/engines/engines.hpp"
#include "tilecast/error.hpp"

namespace tilecast {

std::string_view engine_name(Engine e) {
  switch (e) {
    case Engine::fused: return "fused";
    case Engine::eager: return "eager";
    case Engine::compiled: return "compiled";
  }
  return "fused";
}

Engine parse_engine(std::string_view word) {
  if (word == "fused" || word == "optimised" || word == "optimized") return Engine::fused;
  if (word == "eager") return Engine::eager;
  if (word == "compiled" || word == "compile" || word == "inductor") return Engine::compiled;
  throw Error("'" + std::string(word) +
              "' is not an engine; allowed: fused (or optimised), eager (plain PyTorch), compiled "
              "(torch.compile)");
}

OpGraph build_engine_graph(const ModelConfig& model, const Workload& w, Engine engine) {
  switch (engine) {
    case Engine::eager: return build_op_graph(model, w);
    case Engine::fused: return detail::build_fused_graph(model, w);
    case Engine::compiled: return detail::fuse_vector_chains(build_op_graph(model, w));
  }
  return build_op_graph(model, w);
}

}  // namespace tilecast
