// The micro-kernel table of the instruction set chosen at run time (isa/MicroKernelTable.cpp is
// compiled once per level).
#include "host/MicroKernel.hpp"

#include "host/IsaKernels.hpp"

namespace ts::host {

int vector_lanes() { return isa_kernels().vector_bytes / static_cast<int>(sizeof(float)); }
int vector_registers() { return isa_kernels().vector_registers; }
int max_accumulators() { return isa_kernels().max_accumulators; }
int max_vector_columns() { return isa_kernels().max_vector_columns; }
int max_block_rows() { return isa_kernels().max_block_rows; }
const char* vector_isa() { return isa_kernels().name; }

bool register_block_in_table(int rows, int vector_columns) {
  return isa_kernels().register_block_in_table(rows, vector_columns);
}

MicroKernel micro_kernel(int rows, int vector_columns, bool masked) {
  return isa_kernels().micro_kernel(rows, vector_columns, masked);
}

RegisterBlock choose_register_block(int64_t rows, int64_t cols, int max_accumulators) {
  return isa_kernels().choose_register_block(rows, cols, max_accumulators);
}

}  // namespace ts::host
