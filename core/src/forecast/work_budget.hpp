// The work a request may cost, estimated before it runs: replaying a kernel graph costs one
// step per kernel launch (each section's ops times its repeats), a pipeline schedule one per
// micro-batch chunk per stage, a plan search both for each configuration it replays. A request
// estimated over the budget (about 1 s natively; docs/fuzzing.md) is refused with an Error
// naming what to reduce, so no request hangs a page or a server.
#pragma once

#include <string_view>

#include "tilecast/op_graph.hpp"

namespace tilecast::detail {

// Replay steps one request may take. Measured natively (docs/fuzzing.md, "Work budget"):
// about 1 s at the slowest replay (the learned predictor's training step on a long graph).
inline constexpr double kMaxReplaySteps = 4e6;

// Kernel launches one replay of `g` takes: each section's ops x its repeats.
double replay_steps(const OpGraph& g);

// Throws Error("<what>: about N replay steps, over the budget of M (about 1 s natively);
// reduce <reduce>") when steps > kMaxReplaySteps.
void require_within_budget(double steps, std::string_view what, std::string_view reduce);

}  // namespace tilecast::detail
