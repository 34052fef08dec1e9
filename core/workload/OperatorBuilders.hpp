#pragma once
// Builders for the operators the suites use. Dimension and tensor names are fixed per builder
// so that mappings and measurements can name them:
//   gemm                C[M,N] += A[M,K] * B[K,N]
//   batched_gemm        C[B,M,N] += A[B,M,K] * B[B,K,N]   (tensors A, W, C; dims B, M, N, K)
//   linear              Y[M,N] = A[M,K] * W[K,N] + bias[N]  (stages gemm -> C, bias -> Y)
//   vector operators    over rows R and columns C (C contiguous); X is the input, Y the output
#include <optional>
#include <string>
#include <vector>

#include "workload/Operator.hpp"
#include "workload/VectorStep.hpp"

namespace ts {

// out_dtype: C's type when it differs from A's and B's (int8 x int8 -> int32); unset: dtype.
Operator make_gemm(std::string name, int64_t m, int64_t n, int64_t k,
                   DataType dtype = DataType::fp16, std::optional<DataType> out_dtype = {});
Operator make_batched_gemm(std::string name, int64_t batch, int64_t m, int64_t n, int64_t k,
                           DataType dtype = DataType::fp16, std::optional<DataType> out_dtype = {});

// torch.nn.Linear(K, N, bias=True) on M rows, as PyTorch runs it (addmm): a GEMM and the bias add.
// dims M=0 N=1 K=2; tensors A[M,K], W[K,N], C[M,N], bias[N], Y[M,N] (A, W, C first, as a gemm's);
// stages `gemm` (matmul: A, W -> C, 1 MAC a point) and `bias` (elementwise: C, bias -> Y, 1 op a
// point), so its FLOPs are 2MNK + MN. C is the GEMM's product, an intermediate: a mapping that
// runs the stages as one kernel keeps it on chip (a bias epilogue); one that runs them apart, as
// addmm does (the bias broadcast into the output, then a GEMM with beta = 1 that reads the output
// back and writes it), moves it through memory: the same bytes, M x N written twice and read once.
Operator make_linear(std::string name, int64_t m, int64_t n, int64_t k,
                     DataType dtype = DataType::fp16);

// One vector operator over R x C.
Operator make_vector_op(std::string name, std::string_view step, int64_t rows, int64_t cols,
                        DataType dtype = DataType::fp16);
// A fused chain: each step takes the previous step's output as its first input; intermediates
// are named T1, T2, ...; the final output is Y.
// A 2-D convolution layer as PyTorch's Conv2d sizes it: N images of C x H x W, M filters of
// C/groups x R x S, stride, zero padding and dilation alike on both axes. Dims N, [G,] M, C, P,
// Q, R, S (M and C per group; G only when groups > 1), P x Q the output; tensors Weights
// [G, M, C, R, S], Inputs [N, G, C, stride*P + dilation*R - pad, stride*Q + dilation*S - pad]
// and Outputs [N, G, M, P, Q]: one multiply-accumulate a point. Throws std::invalid_argument
// for channels the groups do not divide or a window larger than the padded input.
struct Conv2dSizes {
  int64_t n = 1, c = 1, m = 1, h = 1, w = 1, r = 1, s = 1;
  int64_t stride = 1, pad = 0, dilation = 1, groups = 1;
};
Operator make_conv2d(std::string name, const Conv2dSizes& sizes, DataType dtype);
// The sizes of an operator make_conv2d built (its H and W the smallest that give its P and Q).
Conv2dSizes conv2d_sizes(const Operator& op);

Operator make_fused_chain(std::string name, const std::vector<std::string>& steps, int64_t rows,
                          int64_t cols, DataType dtype = DataType::fp16);

}  // namespace ts
