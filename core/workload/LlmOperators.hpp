#pragma once
// Builders for the operators of LLM inference (docs/formats.md, "LLM operators"): each is one
// kernel of a decoder layer, with fixed dimension and tensor names so that mappings and
// measurements can name them:
//   rmsnorm            X[R,C], gamma[C] -> Y[R,C]                        reduction over C
//   rope               X[T,H,D], Cos[T,D], Sin[T,D] -> Y[T,H,D]          elementwise
//   silu_mul           X[R,C] (gate), Z[R,C] (up) -> Y[R,C] = SiLU(X) Z  elementwise
//   quant_gemm         A[M,KG,KI], W[KG,KI,N] int4, S[KG,N] fp16 -> C[M,N]
//                      K = KG x KI, KI the quantization group: one scale per group and column
//   lut_gemm           A[M,KS,KB,KI] -> T[M,KS,KB,E] tables (elementwise), then
//                      T, W[Q,KS,KB,N] keys, S[Q,KS,N] fp16 -> C[M,N] (lookup): K = KS x KB x KI,
//                      KI the activations one key covers (mu), E = 2^mu table entries, Q the
//                      weights' bit planes, KS the scale groups, KB the keys of a scale group
//   grouped_gemm       A[B,M,K], W[B,K,N] -> C[B,M,N]: B experts that receive tokens, M the
//                      largest count, since each expert's grid covers the largest group
//   decode_attention   Q[B,H,D], K[B,S,L,D], V[B,S,L,D] -> O[B,H,D], split-KV (flash-decoding)
//   prefill_attention  Q[B,H,M,D], K[B,N,D], V[B,N,D] -> O[B,H,M,D], online softmax
// B counts sequences x KV heads and H the query heads that share one KV head (grouped-query
// attention; H = 1 is multi-head attention).
#include <string>
#include <vector>

#include "workload/Operator.hpp"

namespace ts {

Operator make_rmsnorm(std::string name, int64_t rows, int64_t cols, DataType dtype);
Operator make_rope(std::string name, int64_t tokens, int64_t heads, int64_t head_dim,
                   DataType dtype);
Operator make_silu_mul(std::string name, int64_t rows, int64_t cols, DataType dtype);
// Weight-only int4 GEMM with fp16 scales per `group` rows of K; k must be a multiple of group.
Operator make_quant_gemm(std::string name, int64_t m, int64_t n, int64_t k, int64_t group,
                         DataType dtype);
// Lookup-table GEMM (LUT-GEMM, T-MAC) with `bits`-bit binary-coded weights: a table of the
// 2^key_bits signed sums of each key_bits activations, then per weight bit plane one table read
// per key_bits weights, scaled per `group` of K. key_bits 4 or 8 (keys packed as int4 or int8);
// group a multiple of key_bits that divides k.
Operator make_lut_gemm(std::string name, int64_t m, int64_t n, int64_t k, int64_t bits,
                       int64_t group, int64_t key_bits, DataType dtype);
// rows_per_group: the tokens each expert receives (0 allowed; at least one above 0).
Operator make_grouped_gemm(std::string name, const std::vector<int64_t>& rows_per_group, int64_t n,
                           int64_t k, DataType dtype);
// A query of one token per sequence against `context` cached keys split in `splits` chunks
// (context a multiple of splits), then the reduction of the splits' partial outputs.
Operator make_decode_attention(std::string name, int64_t batch_heads, int64_t group,
                               int64_t context, int64_t splits, int64_t head_dim, DataType dtype);
Operator make_prefill_attention(std::string name, int64_t batch_heads, int64_t group,
                                int64_t queries, int64_t keys, int64_t head_dim, DataType dtype);

}  // namespace ts
