#pragma once
// The register file of the level a source under isa/ is compiled for. Include after
// IsaTarget.hpp, from those sources only: the constants differ per level, so they live in the
// level's namespace (MicroKernel.hpp has them as functions, of the level chosen at run time).
#include "host/isa/IsaTarget.hpp"

namespace ts::host::TS_HOST_ISA {

#if TS_HOST_AVX512
inline constexpr int kVectorLanes = 16;
inline constexpr int kVectorRegisters = 32;
inline constexpr const char* kVectorIsa = "avx512f";
#elif TS_HOST_AVX2
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

}  // namespace ts::host::TS_HOST_ISA
