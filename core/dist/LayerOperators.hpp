#pragma once
// A transformer's work as tile-model operators: the forward operators of one layer on one
// tensor-parallel shard (Megatron's split: QKV and MLP-up by columns, projection and MLP-down by
// rows, heads over the shards), the output layer, and the matmul FLOPs of a training iteration.
#include <cstdint>
#include <string>
#include <vector>

#include "dist/TransformerModel.hpp"
#include "workload/Operator.hpp"

namespace ts {

enum class Recompute {
  none,       // every activation kept for the backward pass
  selective,  // the attention core (scores, softmax, context) recomputed in the backward pass
  full,       // each layer's whole forward pass run again in the backward pass
};
std::string_view to_string(Recompute r);

// Forward operators of one layer for `micro_batch` sequences on one of `tp` shards, in execution
// order. For a t5 model, `decoder` adds the cross-attention block.
std::vector<Operator> layer_forward_operators(const TransformerModel& model, int64_t micro_batch,
                                              int64_t tp, bool decoder = false);
// Whether an operator of `layer_forward_operators` belongs to the attention core (scores,
// softmax, dropout, context): what selective recomputation recomputes.
bool is_attention_core(const std::string& name);

// The output layer (logits over the vocabulary, split by columns over the shards).
Operator logits_operator(const TransformerModel& model, int64_t micro_batch, int64_t tp);

// Matmul FLOPs (2 per multiply-accumulate) of one training iteration over `global_batch`
// sequences, counting what runs: the forward pass, the backward pass (twice the forward's), and
// the recomputed forward work. The output layer is never recomputed.
double iteration_matmul_flops(const TransformerModel& model, int64_t global_batch,
                              Recompute recompute);

}  // namespace ts
