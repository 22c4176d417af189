// Paths the build passes in: the shared measurement data and the repository.
#pragma once

#include <string>

namespace tilecast::test {

inline std::string data_dir() { return TILECAST_DATA_DIR; }
inline std::string repo_dir() { return TILECAST_REPO_DIR; }
inline std::string cli_path() { return TILECAST_CLI; }
std::string read_file(const std::string& path);  // throws when missing
bool file_exists(const std::string& path);

}  // namespace tilecast::test
