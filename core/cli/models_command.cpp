// `tilecast models`: the embedded model zoo.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "io.hpp"
#include "tilecast/api.hpp"
#include "tilecast/model_zoo.hpp"

namespace tilecast::cli {
namespace {

int run_models(const Args& args) {
  if (args.has("validate")) {
    std::printf("%s\n", api::validate_model(read_text_file(args.get("validate"))).c_str());
    return 0;
  }
  if (args.has("json")) {
    std::printf("%s\n", nlohmann::json::parse(api::list_models()).dump(2).c_str());
    return 0;
  }
  std::printf("%-14s %-30s %-20s %7s %7s %8s\n", "id", "name", "architecture", "layers", "hidden",
              "params");
  for (const auto& m : model_zoo())
    std::printf("%-14s %-30s %-20s %7lld %7lld %7.2fB\n", m.id.c_str(), m.name.c_str(),
                std::string(architecture_name(m.architecture)).c_str(),
                static_cast<long long>(m.num_layers + m.num_decoder_layers),
                static_cast<long long>(m.hidden_size), m.params() / 1e9);
  return 0;
}

[[maybe_unused]] const bool models_registered =
    register_command({"models",
                      "[--json] [--validate CONFIG.json]",
                      "list the model zoo, or validate a Hugging Face config",
                      {"validate"},
                      {"json"},
                      run_models});

}  // namespace
}  // namespace tilecast::cli
