#pragma once
// The memory a training job holds for its model, per GPU, apart from activations: weights,
// gradients and optimizer state, as mixed-precision Adam keeps them (Megatron-LM).
#include "training/ParallelStrategy.hpp"
#include "training/TransformerModel.hpp"

namespace ts {

// Bytes per parameter: 16-bit weights (2), fp32 gradients (4, Megatron's main_grad), and the
// optimizer's fp32 master weights, momentum and variance (4 + 4 + 4).
struct ModelStateBytesPerParameter {
  static constexpr double weights = 2, gradients = 4, optimizer = 12;
};

struct ModelState {
  double parameters = 0;         // parameters this GPU holds a shard of (before ZeRO)
  double expert_parameters = 0;  // of which experts' weights (ZeRO shards them over dp / ep)
  double weight_bytes = 0, gradient_bytes = 0, optimizer_bytes = 0;
  double total_bytes() const { return weight_bytes + gradient_bytes + optimizer_bytes; }
};

// Which GPU of a pipeline: one of a middle stage (its layers only), or of the first (or last)
// stage, which also carries the embedding (tied with the output layer) and, on the first, the
// positions and final norm: the one that holds the most.
enum class PipelineStage { middle, first };

// Tensor parallelism shards the layers and the embedding (positions and norms are replicated);
// ZeRO stage 1 shards the optimizer state over the data-parallel ranks, stage 2 the gradients
// as well, stage 3 the weights as well.
ModelState model_state_per_gpu(const TransformerModel& model, const ParallelStrategy& strategy,
                               PipelineStage stage = PipelineStage::first);

}  // namespace ts
