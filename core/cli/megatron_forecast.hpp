// `tilecast forecast --engine megatron`: the flags into the API's request, the forecast printed
// (docs/megatron.md).
#pragma once

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "tilecast/megatron.hpp"

namespace tilecast::cli {

// Flags with a value and switches the megatron engine adds to `tilecast forecast`.
inline constexpr const char* kMegatronFlags[] = {"attention", "virtual-stages", "tokens", "cp",
                                                 "ep"};
inline constexpr const char* kMegatronSwitches[] = {"sequence-parallel", "no-distributed-optimizer",
                                                    "no-overlap-grad-reduce"};

// `req` holds gpu, model, batch, seq, mode, predictor (and precision when given).
int run_megatron(const Args& args, nlohmann::json req);

}  // namespace tilecast::cli
