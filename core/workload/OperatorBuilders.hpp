#pragma once
// Builders for the operators the suites use. Dimension and tensor names are fixed per builder
// so that mappings and measurements can name them:
//   gemm                C[M,N] += A[M,K] * B[K,N]
//   batched_gemm        C[B,M,N] += A[B,M,K] * B[B,K,N]   (tensors A, W, C; dims B, M, N, K)
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

// One vector operator over R x C.
Operator make_vector_op(std::string name, std::string_view step, int64_t rows, int64_t cols,
                        DataType dtype = DataType::fp16);
// A fused chain: each step takes the previous step's output as its first input; intermediates
// are named T1, T2, ...; the final output is Y.
Operator make_fused_chain(std::string name, const std::vector<std::string>& steps, int64_t rows,
                          int64_t cols, DataType dtype = DataType::fp16);

}  // namespace ts
