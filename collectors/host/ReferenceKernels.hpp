#pragma once
// Scalar double-precision references that every host measurement is checked against, and the
// error measure: the largest |result - reference| over a per-element scale that does not
// vanish where the reference happens to be near zero.
#include <span>
#include <vector>

#include "workload/Operator.hpp"

namespace ts::host {

// Largest error a result may have and still count as correct. GEMM: relative to sum_k |a||b|,
// where fp32 rounding stays near eps (6e-8) times a small factor; a kernel that drops or
// repeats one K block of many is off by far more. Vector: relative to the robust scale; the
// kernels' exp is good to a few ulp and the row reductions add a few ulp more.
inline constexpr double kGemmTolerance = 1e-5;
inline constexpr double kVectorTolerance = 1e-5;

struct Reference {
  std::vector<double> value;  // the expected output, row-major
  // What an element's error is measured against: sum_k |a||b| for a GEMM (the size of the
  // rounding a correct fp32 kernel makes), max(|value|, mean |value| over the output) for
  // vector operators.
  std::vector<double> scale;
};

// gemm or batched_gemm: C = A x B per batch, A [B][M][K], B (W) [B][K][N], row-major.
Reference reference_gemm(const Operator& op, const float* a, const float* b);

// A vector operator or fused chain (VectorKernels.hpp for the semantics): `tensors[t]` points at
// tensor t of the operator; intermediates are computed here in double and never read.
// Returns the final output Y.
Reference reference_vector(const Operator& op, std::span<const float* const> tensors);

// max_i |got_i - value_i| / scale_i (0 when every scale is 0 and the values agree exactly);
// infinity when a result is not finite.
double max_relative_error(std::span<const float> got, const Reference& ref);

}  // namespace ts::host
