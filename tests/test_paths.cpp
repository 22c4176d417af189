#include "test_paths.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tilecast::test {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test fixture missing: " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

}  // namespace tilecast::test
