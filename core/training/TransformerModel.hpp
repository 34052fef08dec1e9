#pragma once
// A model as the distributed simulator sees it: the sizes that fix its operators, its parameters
// and its FLOPs (`kind: model` files, docs/formats.md). A transformer of one of four families, or
// (`family: graph`) a block of operators repeated `layers` times (GraphBlock).
#include <cstdint>
#include <string>

#include "common/InputError.hpp"
#include "training/GraphBlock.hpp"

namespace ts {

enum class ModelFamily {
  gpt,    // pre-norm decoder, biases, GELU MLP (h -> ffn -> h), learned positions
  llama,  // decoder without biases, SwiGLU MLP (three ffn x h matrices), rotary positions
  bert,   // encoder, biases, GELU MLP, learned positions
  t5,     // encoder-decoder; `layers` counts both stacks, each decoder layer with cross-attention
  graph,  // not a transformer: `block`, the operators of one layer, repeated `layers` times
};
std::string_view to_string(ModelFamily family);

struct TransformerModel {
  std::string name;
  ModelFamily family = ModelFamily::gpt;
  int64_t layers = 0;
  int64_t hidden = 0;  // graph: the width of what passes between layers and pipeline stages
  int64_t heads = 0;   // graph: 0
  int64_t ffn = 0;     // graph: 0
  int64_t vocab = 0;   // graph: 0 (no embedding, no output layer)
  int64_t seq_len = 0;
  int64_t experts = 1;  // MoE: experts per MLP (1: dense)
  int64_t top_k = 1;    // MoE: experts each token visits
  GraphBlock block;     // graph only
  std::string file;
  // Where each field was written, so that a strategy that does not fit the model can point at
  // the model's number as well as its own.
  SourceLocation where, heads_where, layers_where;
  // Where the sizes that shape a layer's operators were written: an operator too large for its
  // device points at the one that makes it large (LayerOperators).
  SourceLocation hidden_where, ffn_where, vocab_where, seq_len_where;

  bool is_graph() const { return family == ModelFamily::graph; }

  // Trainable parameters: attention, MLP (every expert), layernorms, embeddings (tied with the
  // output layer, except llama's), learned positions where the family has them. A graph model:
  // its block's, times the layers.
  double parameters() const;
  // Of those, the experts' MLP weights in one layer (0 for a dense model): what expert
  // parallelism spreads over its ranks.
  double expert_parameters_per_layer() const;
};

TransformerModel parse_transformer_model(const std::string& text, const std::string& file_name);
TransformerModel load_transformer_model(const std::string& path);

}  // namespace ts
