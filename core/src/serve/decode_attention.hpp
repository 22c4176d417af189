// How often a decode step's attention reads each cached K/V head (tilecast/serving.hpp
// DecodeAttention): applied by the serving graph pass (serve/quantize.cpp) and the load
// simulator's attention (serve/simulator/step_cost.cpp), and the caveat that says so.
#pragma once

#include <string>

#include "tilecast/model_config.hpp"
#include "tilecast/serving.hpp"

namespace tilecast::detail {

// 1 (grouped), or the query heads per K/V head of `model` (per-query-head; 1 for a model whose
// every query head has its own K/V head).
double decode_kv_reads(DecodeAttention a, const ModelConfig& model);

// The caveat of a per-query-head forecast; empty for grouped.
std::string decode_attention_caveat(DecodeAttention a, const ModelConfig& model);

}  // namespace tilecast::detail
