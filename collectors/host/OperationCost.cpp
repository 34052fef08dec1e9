#include "host/OperationCost.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "host/RepetitionTiming.hpp"
#include "host/VectorMath.hpp"

namespace ts::host {
namespace {

// 4 KiB per operand: three rows together are well inside any L1 data cache (32-48 KiB).
constexpr int64_t kElements = 1024;

// Each pass writes y; the asm says memory is read after it, so no pass is dead.
__attribute__((noinline)) void exp_passes(const float* x, float* y, int64_t passes) {
  for (int64_t p = 0; p < passes; ++p) {
#pragma omp simd
    for (int64_t i = 0; i < kElements; ++i) y[i] = exp_poly(x[i]);
    asm volatile("" : : "r"(y) : "memory");
  }
}

// GELU's `x / (1 + e)`: a division of two vectors.
__attribute__((noinline)) void div_passes(const float* x, const float* z, float* y,
                                          int64_t passes) {
  for (int64_t p = 0; p < passes; ++p) {
#pragma omp simd
    for (int64_t i = 0; i < kElements; ++i) y[i] = x[i] / z[i];
    asm volatile("" : : "r"(y) : "memory");
  }
}

// layernorm's std::sqrt, here per element.
__attribute__((noinline)) void sqrt_passes(const float* x, float* y, int64_t passes) {
  for (int64_t p = 0; p < passes; ++p) {
#pragma omp simd
    for (int64_t i = 0; i < kElements; ++i) y[i] = std::sqrt(x[i]);
    asm volatile("" : : "r"(y) : "memory");
  }
}

}  // namespace

double operation_seconds_per_element(OperationKind kind, double seconds) {
  // Inputs in the ranges the operators see: exp of softmax's x - max (<= 0), divisors of GELU
  // (1 + e > 1), square roots of variances (> 0).
  std::vector<float> x(kElements), z(kElements), y(kElements, 0.0f);
  for (int64_t i = 0; i < kElements; ++i) {
    x[static_cast<size_t>(i)] = -8.0f * static_cast<float>(i) / kElements;
    z[static_cast<size_t>(i)] = 1.0f + static_cast<float>(i) / kElements;
  }
  if (kind == OperationKind::div || kind == OperationKind::sqrt) x = z;
  using Clock = std::chrono::steady_clock;
  auto run = [&](int64_t passes) {
    const auto t0 = Clock::now();
    switch (kind) {
      case OperationKind::exp:
        exp_passes(x.data(), y.data(), passes);
        break;
      case OperationKind::div:
        div_passes(x.data(), z.data(), y.data(), passes);
        break;
      case OperationKind::sqrt:
        sqrt_passes(x.data(), y.data(), passes);
        break;
      case OperationKind::basic:
        throw std::logic_error("the basic operation is the unit, not measured here");
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  return bench::seconds_per_repetition(run, seconds) / kElements;
}

}  // namespace ts::host
