#pragma once
// An operator in einsum form: named dimensions, tensors projected onto them, and one or more
// stages (one stage for a plain operator, several for a fused chain whose intermediates are
// shared between stages).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/CheckedArithmetic.hpp"
#include "common/DataType.hpp"
#include "common/InputError.hpp"
#include "common/OperationKind.hpp"
#include "workload/OperatorType.hpp"

namespace ts {

// The largest size of a dimension, 4e18 (just under 2^62). The analysis refuses extents above
// it (no mapping covers such a size), and below it an extent plus or times a small count, and the
// mapper's doubling of a candidate factor, stay in 64 bits. Loaders refuse larger sizes.
inline constexpr int64_t kLargestDimensionSize = 4'000'000'000'000'000'000;

// A dimension size formed as a product (tokens = micro-batch x seq_len, 3 x hidden): an
// InputError at the factor where the product overflows 64 bits (checked_product), or at the
// last factor when it is larger than kLargestDimensionSize; `what` names the product.
int64_t checked_dimension_size(std::initializer_list<CountAt> factors, std::string_view what);

struct Dimension {
  std::string name;
  int64_t size = 1;
};

// An axis of a tensor indexed by two dimensions at once: a convolution's input row is
// `P*stride + R*dilation - pad` for output row P and filter row R (a sliding window). Both
// dimensions are listed in the tensor's `dims`; the axis spans the box of their extents, as
// Timeloop's data space counts it (padding included: the rows a window over the padded input
// touches).
struct WindowAxis {
  int dims[2] = {-1, -1};       // indices into Operator::dims
  int64_t strides[2] = {1, 1};  // the coefficient of each: stride and dilation
  int64_t pad = 0;              // subtracted from the index; the box does not depend on it
};

// The rows a window axis spans over extents a and b of its two dimensions (both >= 1); the
// analysis takes it in doubles (average extents of loops with tails).
inline int64_t window_span(const WindowAxis& w, int64_t a, int64_t b) {
  return (a - 1) * w.strides[0] + (b - 1) * w.strides[1] + 1;
}
inline double window_span(const WindowAxis& w, double a, double b) {
  return (a - 1) * static_cast<double>(w.strides[0]) + (b - 1) * static_cast<double>(w.strides[1]) +
         1;
}

struct TensorSpec {
  std::string name;
  std::vector<int> dims;  // indices into Operator::dims, outermost first (last is contiguous)
  DataType dtype = DataType::fp16;
  // Axes formed by two of `dims` (their dims also appear in `dims`); empty for a plain tensor.
  std::vector<WindowAxis> windows;
};

struct Stage {
  std::string name;  // e.g. "gemm", "add", "layernorm"
  OpClass op_class = OpClass::matmul;
  std::vector<int> inputs;   // tensor indices
  int output = -1;           // tensor index
  std::vector<int> dims;     // its iteration space (indices into Operator::dims)
  double ops_per_point = 1;  // operations per point of the iteration space
  // The same operations by kind (exp, div, ...): their sum is ops_per_point, which the floors
  // and FLOP counts read; a unit that prices kinds (ComputeCapability::operation_cost) reads
  // these. Set both through set_operations.
  OperationCounts operations{1, 0, 0, 0};
};

// Sets a stage's operations per point by kind and ops_per_point to their sum.
void set_operations(Stage& stage, const OperationCounts& per_point);

struct Operator {
  std::string name;
  OperatorType type = OperatorType::einsum;  // the builder that made it
  std::vector<Dimension> dims;
  std::vector<TensorSpec> tensors;
  std::vector<Stage> stages;
  SourceLocation where;
  // What `where` points at when it is not the operator's own entry in a file: an operator a
  // builder made from a model's sizes points at the size that makes it large, and says so here
  // ("of model 'gpt', sized by its `hidden` 65536 at micro-batch 8 on 1 tensor-parallel
  // shard") for messages about it. Empty for an operator written in a file.
  std::string sized_by;
  // A grouped_gemm's tokens per group (expert), as written; empty for every other type.
  std::vector<int64_t> group_rows;
  // How many times the operator runs in its workload, or in one forward pass of a model: `count:`
  // in a workload file (default 1), a decoder layer's operators once per layer (the LLM
  // builder), a workload written from a trace each operator's launches. Not part of its identity.
  int64_t count = 1;

  int find_dim(std::string_view dim_name) const;        // -1 when absent
  int find_tensor(std::string_view tensor_name) const;  // -1 when absent
  bool is_fused() const { return stages.size() > 1; }
  OpClass primary_class() const;  // matmul if any stage is, else lookup, else the first stage's
  DataType primary_dtype() const;
  double total_ops() const;                       // sum over stages of points x ops_per_point
  double total_flops() const;                     // 2 x MACs for matmul stages, ops otherwise
  double matmul_flops() const;                    // 2 x MACs of the matmul stages alone
  double stage_points(const Stage& stage) const;  // points of a stage's iteration space
  double tensor_bytes(int tensor) const;          // elements x bytes of its data type
  double tensor_elements(int tensor) const;       // plain dims' sizes x window spans
  // A tensor no stage produces is an input; one produced and read by a later stage is an
  // intermediate; one produced and not read is an output.
  bool is_input(int tensor) const;
  bool is_intermediate(int tensor) const;
  bool is_output(int tensor) const;
  int producer(int tensor) const;  // stage index or -1
  // "M=4096 N=768 K=768"; a window axis adds its formula: "... H=2P+R-1".
  std::string shape_text() const;
};

// The dimensions of a stage's first input that neither its other inputs nor its output index:
// for a lookup, the table's entries (gathered by key); for the stage of a lookup GEMM that builds
// the tables, the activations each entry sums.
std::vector<int> gathered_dims(const Operator& op, const Stage& stage);

// A window axis as a workload writes it: "2*P+R-1" (stride 2, dilation 1, pad 1).
std::string window_text(const Operator& op, const WindowAxis& w);

// A matrix product (gemm, batched_gemm, or linear: a GEMM and its bias): the operators with a tiled
// kernel, a library (BLAS) call and several mappings in a measured suite, where other operators
// have one vector kernel. The spec of one lists its dims (OperatorSpec.hpp).
inline bool is_gemm(const Operator& op) { return is_gemm(op.type); }

struct Workload {
  std::string name;
  std::string description;
  std::string source_file;
  int64_t batch = 0;
  int64_t seq_len = 0;
  // A forward pass built from a model (LlmModel.hpp): the tokens it produces (decode: one per
  // sequence; prefill: every token of every sequence) and its phase; 0 and empty otherwise.
  int64_t tokens_per_pass = 0;
  std::string phase;
  std::vector<Operator> operators;
};

}  // namespace ts
