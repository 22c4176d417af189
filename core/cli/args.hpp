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
  // A number flag's value (e.g. 2.5, 3e11); the error names the flag and says what it is.
  double real(const std::string& name, const std::string& what) const;
  // Every value a repeatable flag was given, in order (`get` returns the last).
  std::vector<std::string> all(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // The arguments as given.
  const std::vector<std::string>& argv() const { return argv_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> repeated_;
  std::vector<std::string> positional_;
  std::vector<std::string> argv_;
};

// `text`, given for flag `--flag`, as a number; throws Error "--flag: 'text' is not a number"
// (followed by " (what)" when `what` is not empty).
double parse_number(const std::string& flag, const std::string& text, const std::string& what = "");

}  // namespace tilecast::cli
