// The calibration's operation-cost loops (OperationCost.cpp) for one instruction-set level: the
// element functions of the vector kernels in the same loops, compiled as they are (once per
// level, IsaTarget.hpp).
#include <cmath>
#include <cstdint>

#include "host/VectorMath.hpp"
#include "host/isa/LevelKernels.hpp"

namespace ts::host::TS_HOST_ISA {

// Each pass writes y; the asm says memory is read after it, so no pass is dead.
void exp_passes(const float* x, float* y, int64_t n, int64_t passes) {
  for (int64_t p = 0; p < passes; ++p) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = exp_poly(x[i]);
    asm volatile("" : : "r"(y) : "memory");
  }
}

// GELU's `x / (1 + e)`: a division of two vectors.
void div_passes(const float* x, const float* z, float* y, int64_t n, int64_t passes) {
  for (int64_t p = 0; p < passes; ++p) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] / z[i];
    asm volatile("" : : "r"(y) : "memory");
  }
}

// layernorm's std::sqrt, here per element.
void sqrt_passes(const float* x, float* y, int64_t n, int64_t passes) {
  for (int64_t p = 0; p < passes; ++p) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = std::sqrt(x[i]);
    asm volatile("" : : "r"(y) : "memory");
  }
}

}  // namespace ts::host::TS_HOST_ISA
