#pragma once
// A transformer model for inference by its hyper-parameters, and the pass to predict: what a
// `kind: llm-model` file says (docs/formats.md). build_llm_workload turns it into the operators
// of one layer, run `layers` times, and those that run once per pass (the final norm and the
// LM head), each with its count per forward pass (Operator::count).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workload/Operator.hpp"

namespace ts {

enum class LlmFamily {
  decoder,  // Llama-style: RMSNorm, RoPE, causal attention, gated SiLU MLP (or experts)
  dit,      // a diffusion transformer block (DiT): LayerNorm with adaLN modulation, full
            // attention over image tokens, GELU MLP
};

enum class LlmPhase {
  prefill,  // `batch` sequences of `tokens` tokens each, attention over those tokens
  decode,   // one new token for each of `batch` sequences, attention over `context` cached ones
};

struct LlmModel {
  std::string name;
  std::string description;
  LlmFamily family = LlmFamily::decoder;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // grouped-query attention: heads share kv_heads key/value heads
  int64_t head_dim = 0;  // hidden / heads unless given
  int64_t ffn = 0;       // intermediate size of the MLP (of each expert)
  int64_t layers = 0;
  int64_t vocab = 0;    // 0: no LM head (a DiT block)
  int64_t experts = 1;  // above 1: mixture of experts, top_k of them per token
  int64_t top_k = 1;
  // Tokens each expert receives, as fractions of the routed tokens (sum 1); empty: balanced.
  std::vector<double> expert_load;
  DataType dtype = DataType::fp16;    // activations, and weights unless `weights` says otherwise
  DataType weights = DataType::fp16;  // int4: W4A16 quant_gemm; int8: W8A8 gemm -> int32
  int64_t group = 128;                // int4 weights: rows of K per scale
};

struct LlmPass {
  LlmPhase phase = LlmPhase::decode;
  int64_t batch = 1;      // sequences
  int64_t tokens = 0;     // prefill: tokens per sequence
  int64_t context = 0;    // decode: cached tokens per sequence (the KV length)
  int64_t kv_splits = 0;  // decode: splits of the KV cache; 0: chosen (llm_kv_splits)
};

// The splits flash-decoding would choose: the largest power of two, at most 64 and at most
// 128 / (batch x kv_heads) (enough parts for the SMs of a large GPU), that divides the context.
int64_t llm_kv_splits(int64_t batch_kv_heads, int64_t context);

// Tokens each of the model's experts receives from `routed` = tokens x top_k assignments:
// model.expert_load's fractions, rounded so that they sum to `routed`; balanced when it is
// empty (the first routed % experts one more).
std::vector<int64_t> llm_expert_tokens(const LlmModel& model, int64_t routed);

// Throws std::invalid_argument for hyper-parameters that do not fit together (the reader checks
// them first, at their keys).
Workload build_llm_workload(const LlmModel& model, const LlmPass& pass);

}  // namespace ts
