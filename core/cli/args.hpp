// Command-line flags: `--name value`, `--switch`, and positional arguments.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tilecast::cli {

class Args {
 public:
  // Throws tilecast::Error for a flag not in `flags`/`switches` or a flag missing its value.
  Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags,
       const std::vector<std::string>& switches);

  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
  std::string require(const std::string& name) const;
  // An integer flag in [min, max]; the error names the flag.
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) const;
  // Every value a repeatable flag was given, in order (`get` returns the last).
  std::vector<std::string> all(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> repeated_;
  std::vector<std::string> positional_;
};

}  // namespace tilecast::cli
