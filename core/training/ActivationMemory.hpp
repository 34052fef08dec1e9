#pragma once
// Activation memory: what each layer keeps for its backward pass, tensor by tensor, as Korthikanti
// et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models", Section 4)
// account for it in 16-bit training, and how tensor and sequence parallelism, selective and full
// recomputation, and the pipeline schedule change it.
#include <string>
#include <vector>

#include "training/ParallelStrategy.hpp"
#include "training/TransformerModel.hpp"

namespace ts {

struct SavedActivation {
  std::string what;
  double bytes = 0;  // per micro-batch, on one tensor-parallel rank
};

// The tensors one layer saves for its backward pass under the strategy's parallelism and
// recomputation (full recomputation keeps only the layer's input). A graph block saves its
// input and the output of every operator but the last, as their splits leave them.
std::vector<SavedActivation> layer_saved_activations(const TransformerModel& model,
                                                     const ParallelStrategy& strategy);

// Bytes one layer saves on average over a pipeline chunk: the strategy's recomputation, and the
// override's for the first layers of every chunk.
double mean_layer_saved_bytes(const TransformerModel& model, const ParallelStrategy& strategy);

// Peak activation bytes on the GPU that holds the most: the first pipeline stage, which keeps
// the micro-batches in flight of its schedule. 1F1B: p micro-batches of L/p layers, that is L
// layers' worth (fewer when there are fewer micro-batches than stages); interleaved 1F1B over v
// chunks: L (1 + (p - 1)/(p v)) layers' worth; GPipe: all
// m micro-batches of L/p layers.
double activation_bytes_per_gpu(const TransformerModel& model, const ParallelStrategy& strategy);

}  // namespace ts
