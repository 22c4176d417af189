#include "model_flag.hpp"

#include <algorithm>
#include <optional>

#include "io.hpp"
#include "tilecast/error.hpp"
#include "tilecast/learned_models.hpp"

namespace tilecast::cli {

std::vector<std::string> apply_model_flag(const Args& args,
                                          const std::map<std::string, GpuSpec>& devices) {
  const std::vector<std::string> ids = args.all("model");
  if (args.has("model-dir") && ids.empty())
    throw Error("--model-dir needs --model ID (the model whose files it holds)");
  if (ids.empty()) return ids;
  const std::string dir = args.get("model-dir");
  std::vector<std::string> vendors;
  for (const auto& [name, gpu] : devices)
    if (std::find(vendors.begin(), vendors.end(), gpu.vendor) == vendors.end())
      vendors.push_back(gpu.vendor);
  for (const std::string& id : ids)
    use_model(id, vendors, [&](const std::string& file) -> std::optional<std::string> {
      if (dir.empty() || !is_regular_file(dir + "/" + file)) return std::nullopt;
      return read_text_file(dir + "/" + file);
    });
  return ids;
}

}  // namespace tilecast::cli
