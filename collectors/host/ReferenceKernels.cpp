#include "host/ReferenceKernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "host/VectorKernels.hpp"

namespace ts::host {
namespace {

int64_t dim_size(const Operator& op, std::string_view name) {
  const int d = op.find_dim(name);
  return d >= 0 ? op.dims[static_cast<size_t>(d)].size : 1;
}

// One step in double on R x C, `x` the previous output.
std::vector<double> reference_step(VectorStep step, const std::vector<double>& x, const float* e0,
                                   const float* e1, int64_t rows, int64_t cols) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * cols;
    double* yr = y.data() + r * cols;
    const float* full = e0 ? e0 + r * cols : nullptr;
    switch (step) {
      case VectorStep::add:
      case VectorStep::mask:
        for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] + full[c];
        break;
      case VectorStep::mul:
        for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * full[c];
        break;
      case VectorStep::bias:
        for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] + e0[c];
        break;
      case VectorStep::scale:
        for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * static_cast<double>(kScaleFactor);
        break;
      case VectorStep::relu:
        for (int64_t c = 0; c < cols; ++c) yr[c] = std::max(xr[c], 0.0);
        break;
      case VectorStep::gelu:
        for (int64_t c = 0; c < cols; ++c) {
          const double v = xr[c];
          yr[c] = 0.5 * v *
                  (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
        }
        break;
      case VectorStep::softmax: {
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t c = 0; c < cols; ++c) m = std::max(m, xr[c]);
        double s = 0;
        for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
        for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / s;
        break;
      }
      case VectorStep::layernorm: {
        double mean = 0;
        for (int64_t c = 0; c < cols; ++c) mean += xr[c];
        mean /= static_cast<double>(cols);
        double var = 0;
        for (int64_t c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
        var /= static_cast<double>(cols);
        const double rstd = 1.0 / std::sqrt(var + static_cast<double>(kLayerNormEpsilon));
        for (int64_t c = 0; c < cols; ++c) yr[c] = (xr[c] - mean) * rstd * e0[c] + e1[c];
        break;
      }
    }
  }
  return y;
}

}  // namespace

Reference reference_gemm(const Operator& op, const float* a, const float* b) {
  const int64_t batch = dim_size(op, "B"), m = dim_size(op, "M"), n = dim_size(op, "N"),
                k = dim_size(op, "K");
  Reference ref;
  ref.value.assign(static_cast<size_t>(batch * m * n), 0.0);
  ref.scale.assign(ref.value.size(), 0.0);
  // Rows in parallel (a large suite GEMM is billions of scalar multiply-adds); each row's sums
  // run in k order whatever the thread count, so the reference does not depend on it.
#pragma omp parallel for schedule(dynamic, 4)
  for (int64_t row = 0; row < batch * m; ++row) {
    const int64_t bi = row / m;
    double* c = ref.value.data() + row * n;
    double* s = ref.scale.data() + row * n;
    for (int64_t p = 0; p < k; ++p) {
      const double av = a[row * k + p];
      const float* bp = b + (bi * k + p) * n;
      for (int64_t j = 0; j < n; ++j) {
        c[j] += av * bp[j];
        s[j] += std::fabs(av * bp[j]);
      }
    }
  }
  return ref;
}

Reference reference_vector(const Operator& op, std::span<const float* const> tensors) {
  const std::vector<VectorStage> stages = vector_stages(op);
  const int64_t rows = op.dims[0].size, cols = op.dims[1].size;
  const float* x = tensors[static_cast<size_t>(stages.front().input)];
  std::vector<double> value(x, x + rows * cols);
  for (const VectorStage& s : stages) {
    const float* e0 = s.extra[0] >= 0 ? tensors[static_cast<size_t>(s.extra[0])] : nullptr;
    const float* e1 = s.extra[1] >= 0 ? tensors[static_cast<size_t>(s.extra[1])] : nullptr;
    value = reference_step(s.step, value, e0, e1, rows, cols);
  }
  Reference ref;
  double mean_abs = 0;
  for (double v : value) mean_abs += std::fabs(v);
  mean_abs /= std::max<double>(1.0, static_cast<double>(value.size()));
  ref.scale.resize(value.size());
  for (size_t i = 0; i < value.size(); ++i) ref.scale[i] = std::max(std::fabs(value[i]), mean_abs);
  ref.value = std::move(value);
  return ref;
}

double max_relative_error(std::span<const float> got, const Reference& ref) {
  if (got.size() != ref.value.size()) return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i];
    if (!std::isfinite(g)) return std::numeric_limits<double>::infinity();
    const double diff = std::fabs(g - ref.value[i]);
    if (diff == 0) continue;
    const double scale = ref.scale[i];
    worst = std::max(worst, scale > 0 ? diff / scale : std::numeric_limits<double>::infinity());
  }
  return worst;
}

}  // namespace ts::host
