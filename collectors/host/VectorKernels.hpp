#pragma once
// Vector operators and fused chains on the host (docs/host.md, "Host collector"): rows of fp32,
// row-major over R x C (C contiguous), in the builders' semantics (workload/OperatorBuilders):
//   add        Y = X + Z              mul   Y = X * Z           (Z over R x C)
//   bias       Y = X + bias[c]                                  (bias over C)
//   scale      Y = X * kScaleFactor
//   mask       Y = X + Mask                                     (additive, over R x C)
//   relu       Y = max(X, 0)
//   gelu       Y = X/2 (1 + tanh(sqrt(2/pi) (X + 0.044715 X^3)))   (tanh form)
//   softmax    Y = exp(X - max_c X) / sum_c exp(X - max_c X)    per row
//   layernorm  Y = (X - mean_c X) / sqrt(var_c X + kLayerNormEpsilon) * gamma[c] + beta[c]
// A fused chain feeds each step's output to the next step's first input (T1, T2, ..., Y).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "workload/Operator.hpp"
#include "workload/VectorStep.hpp"

namespace ts::host {

// The builders give `scale` no factor; this is the attention scores' 1/sqrt(64) (head dim 64 in
// BERT, ViT and T5 base). Its cost does not depend on the value.
inline constexpr float kScaleFactor = 0.125f;
// PyTorch's LayerNorm default.
inline constexpr float kLayerNormEpsilon = 1e-5f;

// One stage of an operator as the kernels run it: tensor indices into Operator::tensors.
struct VectorStage {
  VectorStep step = VectorStep::relu;
  int input = -1;           // X or the previous stage's output
  int extra[2] = {-1, -1};  // Z / Mask (R x C), bias / gamma, beta (over C)
  int output = -1;
};

// The stages of a vector operator or fused chain built by make_vector_op / make_fused_chain.
// Throws InputError at the operator when it is not one (dims R, C; vector steps only).
std::vector<VectorStage> vector_stages(const Operator& op);

class VectorKernel {
 public:
  VectorKernel(const Operator& op, int threads);

  // `tensors[t]` points at tensor t of the operator (Operator::tensors order), row-major.
  // Fused: every row block goes through all stages in a per-thread buffer of a few rows, so
  // intermediates (T1, T2, ...) never reach memory and may be null. A single step reads its
  // inputs and writes Y directly.
  void run(std::span<float* const> tensors) const;
  // Stage by stage over the whole operator, every intermediate written to and read back from
  // its own array (which must be given): the unfused composition of the same steps.
  void run_unfused(std::span<float* const> tensors) const;

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  // Rows a thread carries through a fused chain at once (its buffer: rows x cols floats).
  int64_t block_rows() const { return block_rows_; }
  const std::vector<VectorStage>& stages() const { return stages_; }

 private:
  std::vector<VectorStage> stages_;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  int64_t block_rows_ = 1;
  int threads_ = 1;
};

}  // namespace ts::host
