#include "vidur_files.hpp"

#include <algorithm>
#include <filesystem>

#include "tilecast/error.hpp"

namespace tilecast::cli {

std::vector<VidurFile> vidur_mlp_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("'" + dir + "' is not a folder");
  std::vector<VidurFile> out;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().filename() == "mlp.csv")
      out.push_back({e.path().string(), fs::relative(e.path(), dir).generic_string()});
  if (ec) throw Error("cannot list '" + dir + "': " + ec.message());
  std::sort(out.begin(), out.end(),
            [](const VidurFile& a, const VidurFile& b) { return a.relative < b.relative; });
  if (out.empty()) throw Error("no <org>/<model>/mlp.csv under '" + dir + "'");
  return out;
}

}  // namespace tilecast::cli
