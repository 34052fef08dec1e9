#pragma once
// The instruction set the collector's sources are compiled for (-march=native). Include only
// from sources of the host library: code built with other flags would see other constants
// (MicroKernel.hpp has them as functions for everyone else).
namespace ts::host {

#if defined(__AVX512F__)
inline constexpr int kVectorLanes = 16;
inline constexpr int kVectorRegisters = 32;
inline constexpr const char* kVectorIsa = "avx512f";
#elif defined(__AVX2__) && defined(__FMA__)
inline constexpr int kVectorLanes = 8;
inline constexpr int kVectorRegisters = 16;
inline constexpr const char* kVectorIsa = "avx2";
#else
inline constexpr int kVectorLanes = 8;
inline constexpr int kVectorRegisters = 16;
inline constexpr const char* kVectorIsa = "generic";
#endif

// Accumulators one block may hold: 7/8 of the registers, leaving the rest for the row of B being
// multiplied and the broadcast element of A (28 of 32 zmm, 14 of 16 ymm).
inline constexpr int kMaxAccumulators = kVectorRegisters * 7 / 8;
// Vector columns a block may span (64 fp32 columns with AVX-512, 32 with AVX2).
inline constexpr int kMaxVectorColumns = 4;
// Rows a block may span (a one-column block uses every accumulator for rows).
inline constexpr int kMaxBlockRows = kMaxAccumulators;

// Whether a block of rows x vector columns is in the table: its accumulators within the limit,
// and, with the row of B (one register per vector column) and the broadcast of A, within the
// register file, so that the compiler never spills an accumulator (7 x 4 on AVX-512 would need
// 33 registers: GCC spills one and the loop carries a store and a reload per step of K).
constexpr bool block_in_table(int rows, int vector_columns) {
  return rows >= 1 && rows <= kMaxBlockRows && vector_columns >= 1 &&
         vector_columns <= kMaxVectorColumns && rows * vector_columns <= kMaxAccumulators &&
         rows * vector_columns + vector_columns + 1 <= kVectorRegisters;
}

}  // namespace ts::host
