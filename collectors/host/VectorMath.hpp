#pragma once
// The element functions of the vector kernels (VectorKernels.cpp), in a header so that the
// calibration's operation-cost microbenchmark (OperationCost.cpp) runs the very code the kernels
// run: inline, vectorised by GCC inside the callers' `omp simd` loops.
#include <bit>
#include <cstdint>

namespace ts::host {

// e^x for x in [-87, 88] to about 2 ulp: x = n ln2 + r with |r| <= ln2/2, e^r by its degree-6
// Taylor polynomial (remainder below 2e-7 relative), 2^n written into the exponent bits.
inline float exp_poly(float x) {
  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  const float round = 12582912.0f;  // 1.5 x 2^23: adding it rounds to an integer
  const float n = (x * 1.44269504089f + round) - round;
  const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;  // ln2 in two parts
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  return p * std::bit_cast<float>(bits);
}

// GELU, tanh form: x/2 (1 + tanh u) = x / (1 + e^{-2u}), u = sqrt(2/pi) (x + 0.044715 x^3).
inline float gelu(float x) {
  const float u = 0.7978845608f * (x + 0.044715f * x * x * x);
  return x / (1.0f + exp_poly(-2.0f * u));
}

}  // namespace ts::host
