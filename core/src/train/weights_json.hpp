// Writing trained nets into a kernel weights file (learned/weights.hpp reads them back): numbers
// rounded to 7 significant digits, so the file is small and a model reads back the same bits.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "learned/mlp.hpp"

namespace tilecast::train {

double round7(double v);
nlohmann::ordered_json numbers(const std::vector<double>& v);
nlohmann::ordered_json net_json(const Mlp& m);
std::string hex64(std::uint64_t h);

}  // namespace tilecast::train
