// One stage of a vector operator over contiguous rows, for one instruction-set level (compiled
// once per level, IsaTarget.hpp). Loops written so that GCC vectorises them at -O3: contiguous
// rows, no calls into libm in the loops (exp is a polynomial, VectorMath.hpp), reductions under
// `omp simd` so that their order may change.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "host/VectorKernels.hpp"
#include "host/VectorMath.hpp"
#include "host/isa/LevelKernels.hpp"

namespace ts::host::TS_HOST_ISA {
namespace {

// The largest of x[0..n). Sixteen independent lanes: GCC leaves a `reduction(max)` loop scalar
// (one vmaxss per element, 4 cycles each), which made softmax compute-bound.
inline float row_max(const float* x, int64_t n) {
  typedef float Lanes __attribute__((vector_size(64)));  // 16 floats, split by the compiler
  constexpr int64_t kLanes = 16;
  Lanes lane = Lanes{} - INFINITY;
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes) {
    Lanes v;
    std::memcpy(&v, x + c, sizeof v);
    lane = v > lane ? v : lane;
  }
  float m = -INFINITY;
  for (int l = 0; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  for (; c < n; ++c) m = x[c] > m ? x[c] : m;
  return m;
}

}  // namespace

// One stage over `rows` contiguous rows. `in` and `out` may be the same array; `full` is the
// stage's extra R x C input at the same rows, `row0`/`row1` its extra inputs over C.
void apply_vector_stage(VectorStep step, const float* in, const float* full, const float* row0,
                        const float* row1, float* out, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  switch (step) {
    case VectorStep::add:
    case VectorStep::mask:
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] + full[i];
      return;
    case VectorStep::mul:
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] * full[i];
      return;
    case VectorStep::scale:
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] * kScaleFactor;
      return;
    case VectorStep::relu:
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = in[i] > 0.0f ? in[i] : 0.0f;
      return;
    case VectorStep::gelu:
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) out[i] = gelu(in[i]);
      return;
    case VectorStep::bias:
      for (int64_t r = 0; r < rows; ++r) {
        const float* x = in + r * cols;
        float* y = out + r * cols;
#pragma omp simd
        for (int64_t c = 0; c < cols; ++c) y[c] = x[c] + row0[c];
      }
      return;
    case VectorStep::softmax:
      for (int64_t r = 0; r < rows; ++r) {
        const float* x = in + r * cols;
        float* y = out + r * cols;
        const float m = row_max(x, cols);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int64_t c = 0; c < cols; ++c) {
          const float e = exp_poly(x[c] - m);
          y[c] = e;
          s += e;
        }
        const float inv = 1.0f / s;
#pragma omp simd
        for (int64_t c = 0; c < cols; ++c) y[c] *= inv;
      }
      return;
    case VectorStep::layernorm:
      for (int64_t r = 0; r < rows; ++r) {
        const float* x = in + r * cols;
        float* y = out + r * cols;
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int64_t c = 0; c < cols; ++c) s += x[c];
        const float mean = s / static_cast<float>(cols);
        float q = 0.0f;
#pragma omp simd reduction(+ : q)
        for (int64_t c = 0; c < cols; ++c) q += (x[c] - mean) * (x[c] - mean);
        const float rstd = 1.0f / std::sqrt(q / static_cast<float>(cols) + kLayerNormEpsilon);
#pragma omp simd
        for (int64_t c = 0; c < cols; ++c) y[c] = (x[c] - mean) * rstd * row0[c] + row1[c];
      }
      return;
  }
}

}  // namespace ts::host::TS_HOST_ISA
