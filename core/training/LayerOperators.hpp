#pragma once
// A transformer's work as tile-model operators: the forward operators of one layer on one
// tensor-parallel shard (Megatron's split: QKV and MLP-up by columns, projection and MLP-down by
// rows, heads over the shards), the output layer, and the matmul FLOPs of a training iteration.
#include <cstdint>
#include <string>
#include <vector>

#include "training/TransformerModel.hpp"
#include "workload/Operator.hpp"

namespace ts {

enum class Recompute {
  none,       // every activation kept for the backward pass
  selective,  // the attention core (scores, softmax, context) recomputed in the backward pass
  full,       // each layer's whole forward pass run again in the backward pass
};
std::string_view to_string(Recompute r);

// Forward operators of one layer for `micro_batch` sequences on one of `tp` shards, in execution
// order. For a t5 model, `decoder` adds the cross-attention block. For a graph model, its block
// on one shard (GraphBlock::forward_operators).
std::vector<Operator> layer_forward_operators(const TransformerModel& model, int64_t micro_batch,
                                              int64_t tp, bool decoder = false);
// Whether an operator of `layer_forward_operators` belongs to the attention core (scores,
// softmax, dropout, context): what selective recomputation recomputes.
bool is_attention_core(const std::string& name);
// Whether selective recomputation recomputes an operator of `layer_forward_operators`: the
// attention core of a transformer, the operators marked `recompute: selective` in a graph block.
bool recomputed_selectively(const TransformerModel& model, const std::string& name);
// Whether sequence parallelism splits an operator of `layer_forward_operators` over the
// tensor-parallel ranks (on tokens / tp): in a transformer, the vector operators outside the
// tensor-parallel regions (layernorms, bias-dropout-adds); in a graph block, the replicated
// (`split: none`) vector operators.
bool split_by_sequence_parallelism(const TransformerModel& model, const Operator& op);

// The tensor-parallel all-reduces of one layer's forward pass, their bytes each (16-bit): a
// transformer's two of its activations (after the attention projection and after the MLP), a
// graph block's one of each row-split operator's output. With sequence parallelism each becomes
// a reduce-scatter and an all-gather, which move the same bytes.
std::vector<double> tensor_parallel_all_reduce_bytes(const TransformerModel& model,
                                                     int64_t micro_batch, int64_t tp);

// The output layer (logits over the vocabulary, split by columns over the shards); a graph model
// has none.
Operator logits_operator(const TransformerModel& model, int64_t micro_batch, int64_t tp);

// Matmul FLOPs (2 per multiply-accumulate) of one training iteration over `global_batch`
// sequences, counting what runs: the forward pass, the backward pass (twice the forward's), and
// the recomputed forward work. The output layer is never recomputed. A graph model: its block's
// GEMMs (2 M N K, 2 B M N K batched), selective recomputation re-running the marked operators.
double iteration_matmul_flops(const TransformerModel& model, int64_t global_batch,
                              Recompute recompute);

}  // namespace ts
