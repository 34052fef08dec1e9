#pragma once
// A model that is not a transformer (`family: graph`, docs/formats.md): one layer written out as
// a block of tile-model operators, repeated `layers` times. Its sizes may scale with the
// micro-batch (`samples`, `tokens`); each operator says how tensor parallelism splits it (`split`)
// and whether selective recomputation recomputes it. From the block come the layer's operators on
// one shard, its parameters, its saved activations and its tensor-parallel all-reduces.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/DataType.hpp"
#include "common/InputError.hpp"
#include "workload/Operator.hpp"

namespace YAML {
class Node;
}

namespace ts {

class YamlSource;

// How tensor parallelism splits a block operator over its tp ranks.
enum class TensorSplit {
  none,    // replicated: every rank runs it whole (on tokens / tp with sequence parallelism)
  column,  // a GEMM's N (its K x N weight by columns), a vector operator's `cols`
  row,     // a GEMM's K (its weight by rows); its output is all-reduced over the ranks after it
  batch,   // a batched GEMM's B or a vector operator's `rows` (attention heads, for instance)
};
std::string_view to_string(TensorSplit split);

// A dimension size as written in a block: an integer times a power of `samples` (the micro-batch
// in sequences); `tokens` is samples x seq_len. Constants (`seq_len`, `hidden`) are folded into
// the coefficient when the file is read.
struct BlockSize {
  int64_t coefficient = 1;
  int samples_power = 0;
  int64_t at(int64_t samples) const;
};

struct BlockOperator {
  std::string name;
  OperatorType type = OperatorType::gemm;  // gemm, batched_gemm, a vector step or fused
  std::vector<std::string> steps;          // fused only
  DataType dtype = DataType::fp16;
  std::vector<std::pair<std::string, BlockSize>> sizes;  // M N K, B M N K, or rows cols
  TensorSplit split = TensorSplit::none;
  bool recompute_selective = false;  // `recompute: selective`
  SourceLocation where;

  bool is_matmul() const { return is_gemm(type); }
  // The dimension `split` divides (N, K, B, cols or rows); empty when replicated.
  std::string split_dimension() const;
  int64_t size(std::string_view dimension, int64_t samples) const;
  // A gemm's weight, K x N, whole (a batched GEMM multiplies activations, as attention does).
  double weight_parameters() const;
  // The operator on one of `tp` ranks for a micro-batch of `samples`; throws InputError at the
  // operator when tp does not divide its split dimension.
  Operator on_rank(int64_t samples, int64_t tp) const;
};

struct GraphBlock {
  std::vector<BlockOperator> operators;
  double extra_parameters = 0;  // `parameters_per_layer`: biases, norms, ... (replicated)

  // Parameters of one layer, all ranks together, and those one of `tp` ranks holds: its shard
  // of every split GEMM's weight, every replicated GEMM's weight, and the extra parameters.
  double parameters() const;
  double parameters_per_rank(int64_t tp) const;
  // One layer's forward operators on one of `tp` ranks, in order.
  std::vector<Operator> forward_operators(int64_t samples, int64_t tp) const;
  const BlockOperator* find(std::string_view name) const;
};

// Reads a graph model's `block` (a non-empty list of operators) and `parameters_per_layer`.
// `seq_len` and `hidden` are the model's, for the symbols of the same names.
GraphBlock read_graph_block(const YamlSource& src, const YAML::Node& root, int64_t seq_len,
                            int64_t hidden);

}  // namespace ts
