// A model given by its sizes, as practitioners describe one (docs/megatron.md, "Models by their
// sizes"): hidden, layers, heads, query groups, FFN width, vocabulary, sequence, SwiGLU or GeLU,
// rotary or learned positions. The architecture is the first dense, sequential decoder-only row
// of the architecture table (model/architectures.cpp) with that MLP and those positions; the sizes
// are written in that row's config dialect and read by parse_model_config, so a model by its sizes
// gets every default and check a Hugging Face config of that architecture gets.
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_fields.hpp"
#include "model/architectures.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_config.hpp"

namespace tilecast {
namespace {

bool plain_decoder(const ArchitectureTraits& t) {
  return t.stack == Stack::decoder_only && t.routing == Routing::none &&
         t.sliding == Sliding::none && !t.softcapping && !t.qk_norm && !t.scaled_embeddings &&
         !t.fused_gate_up && !t.sandwich_norms && !t.parallel_residual &&
         (t.hf.dialect == Dialect::gpt2 || t.hf.dialect == Dialect::llama);
}

std::string_view mlp_word(Ffn f) { return f == Ffn::gated ? "swiglu" : "gelu"; }
std::string_view positions_word(Positions p) {
  return p == Positions::rotary ? "rotary" : "learned";
}

// "swiglu with rotary (llama), gelu with learned (gpt2)": from the table, not typed here
std::string combinations() {
  std::string s;
  for (const ArchitectureTraits& t : architecture_table())
    if (plain_decoder(t)) {
      const std::string c = std::string(mlp_word(t.ffn)) + " with " +
                            std::string(positions_word(t.positions)) + " positions (" +
                            std::string(t.model_type) + ")";
      if (s.find(c.substr(0, c.find(" ("))) == std::string::npos) s += (s.empty() ? "" : ", ") + c;
    }
  return s;
}

}  // namespace

ModelConfig model_from_sizes(std::string_view json_text, std::string_view origin) {
  const nlohmann::json j = detail::parse_json(json_text, origin);
  if (!j.is_object()) throw Error(std::string(origin) + ": the sizes must be a JSON object");
  detail::check_known_fields(j, origin,
                             {"hidden", "layers", "heads", "query_groups", "ffn", "vocab", "seq",
                              "mlp", "positions", "head_dim", "tied", "name", "dropout"});
  auto size = [&](const char* key, std::int64_t fallback) -> std::int64_t {
    if (!detail::has_field(j, key)) {
      if (fallback > 0) return fallback;
      throw Error(std::string(origin) + ": '" + key + "' is required");
    }
    return detail::integer_field(j, key, origin, 1, std::int64_t{1} << 24);
  };
  const std::string mlp = detail::choice_field(j, "mlp", origin, {"swiglu", "gelu"}, false);
  const Ffn ffn = mlp == "gelu" ? Ffn::dense : Ffn::gated;
  std::string pos = detail::choice_field(j, "positions", origin, {"rotary", "learned"}, false);
  if (pos.empty()) pos = ffn == Ffn::gated ? "rotary" : "learned";
  const Positions positions = pos == "rotary" ? Positions::rotary : Positions::learned;
  const ArchitectureTraits* row = nullptr;
  for (const ArchitectureTraits& t : architecture_table())
    if (!row && plain_decoder(t) && t.ffn == ffn && t.positions == positions) row = &t;
  if (!row)
    throw Error(std::string(origin) + ": no architecture has " + std::string(mlp_word(ffn)) +
                " with " + pos + " positions; available: " + combinations());

  const std::int64_t hidden = size("hidden", 0), layers = size("layers", 0),
                     heads = size("heads", 0), vocab = size("vocab", 0);
  const std::int64_t groups = size("query_groups", heads);
  const std::int64_t head_dim = size("head_dim", hidden / heads > 0 ? hidden / heads : 1);
  if (!detail::has_field(j, "head_dim") && hidden % heads != 0)
    throw Error(std::string(origin) + ": heads " + std::to_string(heads) +
                " does not divide hidden " + std::to_string(hidden) + " (or give head_dim)");
  if (heads % groups != 0)
    throw Error(std::string(origin) + ": query_groups " + std::to_string(groups) +
                " does not divide heads " + std::to_string(heads));
  // GeLU: Megatron's default 4h; SwiGLU: Megatron's default, 2/3 of 4h rounded up to 64
  const std::int64_t ffn_width =
      size("ffn", ffn == Ffn::dense ? 4 * hidden : ((8 * hidden / 3 + 63) / 64) * 64);
  const std::int64_t seq = size("seq", 2048);
  const std::string name = detail::has_field(j, "name")
                               ? detail::string_field(j, "name", origin, false)
                               : std::string(mlp_word(ffn)) + " " + std::to_string(layers) + "x" +
                                     std::to_string(hidden) + " (by its sizes)";
  nlohmann::json cfg;
  cfg["model_type"] = std::string(row->model_type);
  cfg["tilecast_name"] = name;
  cfg["vocab_size"] = vocab;
  if (row->hf.dialect == Dialect::gpt2) {
    cfg["n_embd"] = hidden;
    cfg["n_layer"] = layers;
    cfg["n_head"] = heads;
    cfg["n_inner"] = ffn_width;
    cfg["n_positions"] = seq;
  } else {
    cfg["hidden_size"] = hidden;
    cfg["num_hidden_layers"] = layers;
    cfg["num_attention_heads"] = heads;
    cfg["num_key_value_heads"] = groups;
    cfg["intermediate_size"] = ffn_width;
    cfg["max_position_embeddings"] = seq;
    cfg["head_dim"] = head_dim;
  }
  if (detail::has_field(j, "tied"))
    cfg["tie_word_embeddings"] = detail::bool_field(j, "tied", origin, false);
  ModelConfig m = parse_model_config(cfg.dump(), origin);
  m.num_kv_heads = groups;  // a dialect without query groups (GPT-2's) still carries them
  m.head_dim = head_dim;
  if (detail::has_field(j, "dropout")) {
    const double p = detail::number_field(j, "dropout", origin, 0, 1);
    m.attention_dropout = p;
    m.hidden_dropout = p;
  }
  return m;
}

}  // namespace tilecast
