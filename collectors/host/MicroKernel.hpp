#pragma once
// The register-blocked GEMM micro-kernel: C[rows x cols] (+)= A[rows x kc] x B[kc x cols] on
// row-major fp32 operands used in place (no packing), with the C block held in vector registers
// across the whole kc loop. One template per (rows, vector columns), instantiated for every block
// whose accumulators fit the register file, and looked up in a table at run time.
//
// The instruction set is the level chosen when the program runs (HostIsa.hpp):
//   AVX-512F: 16 fp32 lanes, 32 registers, masked loads and stores (__mmask16) at N edges;
//   AVX2+FMA: 8 lanes, 16 registers, _mm256_maskload_ps / _mm256_maskstore_ps at N edges;
//   otherwise: GCC vector extensions of 8 lanes, N edges through a scalar copy.
// A block larger than the table allows (more accumulators than registers, or more than
// max_vector_columns()) is split into table blocks; see choose_register_block.
#include <cstdint>

namespace ts::host {

// The register file of the level in use (isa/MicroKernelIsa.hpp has them as constants for the
// sources compiled per level).
int vector_lanes();        // fp32 lanes per vector register
int vector_registers();    // vector registers of the instruction set
int max_accumulators();    // vectors one register block may hold
int max_vector_columns();  // vector columns one register block may span
int max_block_rows();      // rows one register block may span
const char* vector_isa();  // "avx512f", "avx2" or "generic"

// C[rows x cols] at `c` (row stride ldc) = (accumulate ? C : 0) + A[rows x kc] (row stride lda)
// x B[kc x cols] (row stride ldb). The block's last vector column holds `last_lanes` columns
// (1..vector_lanes()); fewer than a full vector are loaded and stored under a mask.
using MicroKernel = void (*)(int64_t kc, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float* c, int64_t ldc, int last_lanes, bool accumulate);

// Whether the table has a block: rows * vector_columns <= max_accumulators(), and the
// accumulators plus one register per vector column of B plus one broadcast of A fit in
// vector_registers() (on AVX-512: 28 x 1 ... 14 x 2, 9 x 3, 6 x 4; on AVX2: 14 x 1, 6 x 2,
// 4 x 3, 2 x 4).
bool register_block_in_table(int rows, int vector_columns);

// The kernel for a block of `rows` x `vector_columns` vectors, or nullptr when the block is not
// in the table. `masked` selects the
// variant whose last vector column is partial.
MicroKernel micro_kernel(int rows, int vector_columns, bool masked);

// Independent accumulator sets a block of `accumulators` vectors unrolls K into, so that enough
// FMAs are in flight to hide their latency (4 cycles, 2 per cycle: 8 chains).
constexpr int k_unroll(int accumulators) {
  int u = (8 + accumulators - 1) / accumulators;
  return u < 1 ? 1 : (u > 4 ? 4 : u);
}

// A register block: rows of C by vector columns of vector_lanes().
struct RegisterBlock {
  int rows = 1;
  int vector_columns = 1;
};

// The block used for an op block of `rows` x `cols` (the mapping's op factors) when at most
// `max_accumulators` vectors may be held: the op block itself when the table has it, otherwise
// the table block that covers it with the fewest vector loads per step of K (rows + vector
// columns summed over the sub-blocks that tile the op block), ties to the larger block.
RegisterBlock choose_register_block(int64_t rows, int64_t cols, int max_accumulators);

}  // namespace ts::host
