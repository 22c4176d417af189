// The forecaster's version: share links and reports carry it.
#pragma once

#include <string_view>

namespace tilecast {

inline constexpr std::string_view kVersion = "0.1.0";

}  // namespace tilecast
