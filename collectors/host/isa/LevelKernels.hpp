#pragma once
// What each level's sources define, in the level's namespace (include after IsaTarget.hpp);
// IsaKernelsEntry.cpp gathers them into the level's IsaKernels table.
#include <cstddef>
#include <cstdint>

#include "host/IsaKernels.hpp"
#include "host/MicroKernel.hpp"
#include "host/isa/IsaTarget.hpp"

namespace ts::host::TS_HOST_ISA {

// MicroKernelTable.cpp
bool register_block_in_table(int rows, int vector_columns);
MicroKernel micro_kernel(int rows, int vector_columns, bool masked);
RegisterBlock choose_register_block(int64_t rows, int64_t cols, int max_accumulators);

// VectorStageKernels.cpp
void apply_vector_stage(VectorStep step, const float* in, const float* full, const float* row0,
                        const float* row1, float* out, int64_t rows, int64_t cols);

// OperationKernels.cpp: `passes` passes of y[i] = f(x[i]) over n elements
void exp_passes(const float* x, float* y, int64_t n, int64_t passes);
void div_passes(const float* x, const float* z, float* y, int64_t n, int64_t passes);
void sqrt_passes(const float* x, float* y, int64_t n, int64_t passes);

namespace bench {
// MicrobenchKernels.cpp
size_t kernel_granule_bytes();
double vector_fma_per_second(double seconds);
double read_bytes_per_second(const ::ts::host::bench::Buffer& buffer, size_t bytes, double seconds,
                             const HostTopology* topology);
double write_bytes_per_second(const ::ts::host::bench::Buffer& buffer, size_t bytes, double seconds,
                              const HostTopology* topology);
double parallel_read_bytes_per_second(const ::ts::host::bench::Buffer& buffer, size_t bytes,
                                      int threads, double seconds, const HostTopology* topology);
double parallel_write_bytes_per_second(const ::ts::host::bench::Buffer& buffer, size_t bytes,
                                       int threads, double seconds, const HostTopology* topology);
}  // namespace bench

}  // namespace ts::host::TS_HOST_ISA
