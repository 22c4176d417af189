// The one exception type the public API throws: the message names the input
// (file, field or value) and says what is allowed.
#pragma once

#include <stdexcept>
#include <string>

namespace tilecast {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tilecast
