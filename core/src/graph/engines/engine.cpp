// The engine words and the one place an engine selects its graph builder: eager is the
// Hugging Face module graph (build_op_graph), fused the optimised serving engine (fused.cpp),
// compiled the eager graph with torch.compile's vector-chain fusion (compiled.cpp).
#include <string>

#include "graph/builder.hpp"
#include "graph/engines/engines.hpp"
#include "tilecast/enum_names.hpp"
#include "tilecast/error.hpp"

namespace tilecast {

namespace {

// fused: the optimised serving engine; eager: plain PyTorch; compiled: torch.compile.
constexpr EnumName<Engine> kEngines[] = {
    {"fused", Engine::fused},      {"optimised", Engine::fused},   {"optimized", Engine::fused},
    {"eager", Engine::eager},      {"compiled", Engine::compiled}, {"compile", Engine::compiled},
    {"inductor", Engine::compiled}};

}  // namespace

EnumNames<Engine> engine_names() { return kEngines; }

std::string_view engine_name(Engine e) { return enum_name(engine_names(), e); }

Engine parse_engine(std::string_view word) { return parse_enum(engine_names(), word, "an engine"); }

OpGraph build_engine_graph(const ModelConfig& model, const Workload& w, Engine engine) {
  switch (engine) {
    case Engine::eager: return build_op_graph(model, w);
    case Engine::fused: return detail::build_fused_graph(model, w);
    case Engine::compiled:
      return detail::fuse_vector_chains(detail::build_module_graph(model, w, false));
  }
  return build_op_graph(model, w);
}

}  // namespace tilecast
