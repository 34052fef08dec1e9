#pragma once
// The kernels compiled once per instruction-set level (the sources under isa/), as one table per
// level. MicroKernel.cpp and Microbench.cpp forward the public functions to the table of the
// level host_isa() chose.
#include <cstddef>
#include <cstdint>

#include "host/HostIsa.hpp"
#include "host/MicroKernel.hpp"
#include "workload/VectorStep.hpp"

namespace ts::host {
class HostTopology;
namespace bench {
class Buffer;
}

struct IsaKernels {
  HostIsa isa = HostIsa::generic;
  const char* name = "";          // host_isa_name(isa)
  const char* display_name = "";  // as the calibration prints it: "AVX-512", "AVX2", "generic"
  int vector_bytes = 0;           // bytes of one vector register the kernels use
  int vector_registers = 0;       // architectural vector registers
  int max_accumulators = 0;       // vectors one register block may hold
  int max_vector_columns = 0;
  int max_block_rows = 0;

  bool (*register_block_in_table)(int rows, int vector_columns) = nullptr;
  MicroKernel (*micro_kernel)(int rows, int vector_columns, bool masked) = nullptr;
  RegisterBlock (*choose_register_block)(int64_t rows, int64_t cols,
                                         int max_accumulators) = nullptr;

  // One stage of a vector operator over `rows` contiguous rows (VectorKernels.cpp).
  void (*apply_vector_stage)(VectorStep step, const float* in, const float* full, const float* row0,
                             const float* row1, float* out, int64_t rows, int64_t cols) = nullptr;
  // The element functions' costs (OperationCost.cpp): `passes` passes over n elements.
  void (*exp_passes)(const float* x, float* y, int64_t n, int64_t passes) = nullptr;
  void (*div_passes)(const float* x, const float* z, float* y, int64_t n, int64_t passes) = nullptr;
  void (*sqrt_passes)(const float* x, float* y, int64_t n, int64_t passes) = nullptr;

  // The calibration's microbenchmarks (Microbench.cpp).
  size_t (*kernel_granule_bytes)() = nullptr;
  double (*vector_fma_per_second)(double seconds) = nullptr;
  double (*read_bytes_per_second)(const bench::Buffer& buffer, size_t bytes, double seconds,
                                  const HostTopology* topology) = nullptr;
  double (*write_bytes_per_second)(const bench::Buffer& buffer, size_t bytes, double seconds,
                                   const HostTopology* topology) = nullptr;
  double (*parallel_read_bytes_per_second)(const bench::Buffer& buffer, size_t bytes, int threads,
                                           double seconds, const HostTopology* topology) = nullptr;
  double (*parallel_write_bytes_per_second)(const bench::Buffer& buffer, size_t bytes, int threads,
                                            double seconds, const HostTopology* topology) = nullptr;
};

// The table of the level host_isa() chose.
const IsaKernels& isa_kernels();
// The table of `isa`, or nullptr when this CPU cannot run it or the build has no such level
// (a build for another processor has only `generic`).
const IsaKernels* isa_kernels(HostIsa isa);

// Each level's table, defined by isa/IsaKernelsEntry.cpp compiled for that level.
#if defined(TS_HOST_X86_LEVELS)
namespace avx512 {
const IsaKernels& level_kernels();
}
namespace avx2 {
const IsaKernels& level_kernels();
}
#endif
namespace generic {
const IsaKernels& level_kernels();
}

}  // namespace ts::host
