// Loops written so that GCC vectorises them at -O3 -march=native: contiguous rows, no calls into
// libm in the loops (exp is a polynomial below), reductions under `omp simd` so that their
// order may change.
#include "host/VectorKernels.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "common/NameList.hpp"
#include "host/VectorMath.hpp"
#include "workload/VectorStep.hpp"

namespace ts::host {
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

// One stage over `rows` contiguous rows. `in` and `out` may be the same array; `full` is the
// stage's extra R x C input at the same rows, `row0`/`row1` its extra inputs over C.
void apply_stage(VectorStep step, const float* in, const float* full, const float* row0,
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

// Runs stage `s` on rows [r0, r0 + rows) reading `in` and writing `out` (both at row r0).
void apply_rows(const VectorStage& s, std::span<float* const> tensors, const float* in, float* out,
                int64_t r0, int64_t rows, int64_t cols) {
  const bool full_extra =
      s.step == VectorStep::add || s.step == VectorStep::mul || s.step == VectorStep::mask;
  const float* full = full_extra ? tensors[static_cast<size_t>(s.extra[0])] + r0 * cols : nullptr;
  const float* row0 =
      !full_extra && s.extra[0] >= 0 ? tensors[static_cast<size_t>(s.extra[0])] : nullptr;
  const float* row1 = s.extra[1] >= 0 ? tensors[static_cast<size_t>(s.extra[1])] : nullptr;
  apply_stage(s.step, in, full, row0, row1, out, rows, cols);
}

// Rows per block of a fused chain: the buffer stays near 16 KiB, in L1 next to the block's
// inputs and output.
constexpr int64_t kFusedBufferBytes = 16 * 1024;

}  // namespace

std::vector<VectorStage> vector_stages(const Operator& op) {
  if (op.dims.size() != 2 || op.dims[0].name != "R" || op.dims[1].name != "C")
    throw InputError(op.where, fmt::format("operator '{}' ({}) is not a vector operator over R x C",
                                           op.name, to_string(op.type)));
  const std::vector<int> full{0, 1}, row{1};
  auto tensor_is = [&](int t, const std::vector<int>& dims) {
    return t >= 0 && static_cast<size_t>(t) < op.tensors.size() &&
           op.tensors[static_cast<size_t>(t)].dims == dims;
  };
  std::vector<VectorStage> stages;
  int previous = op.find_tensor("X");
  for (const Stage& st : op.stages) {
    // A step that repeats in a chain carries its 1-based index: `add3`.
    std::string_view base = st.name;
    while (!base.empty() && base.back() >= '0' && base.back() <= '9') base.remove_suffix(1);
    const VectorStepInfo* shape = find_vector_step(base);
    if (!shape)
      throw InputError(op.where, fmt::format("operator '{}' has stage '{}', which is not a vector "
                                             "step (known: {})",
                                             op.name, st.name, join_names(vector_steps())));
    const size_t full_extras = shape->full_inputs.size();
    const size_t extras = full_extras + shape->row_inputs.size();
    bool ok = st.inputs.size() == 1 + extras && st.inputs[0] == previous &&
              tensor_is(st.inputs[0], full) && tensor_is(st.output, full);
    for (size_t i = 1; ok && i < st.inputs.size(); ++i)
      ok = tensor_is(st.inputs[i], i <= full_extras ? full : row);
    if (!ok)
      throw InputError(op.where, fmt::format("stage '{}' of operator '{}' does not have the "
                                             "inputs and output the builders give a '{}' step",
                                             st.name, op.name, shape->name));
    VectorStage v;
    v.step = shape->step;
    v.input = st.inputs[0];
    for (size_t i = 1; i < st.inputs.size(); ++i) v.extra[i - 1] = st.inputs[i];
    v.output = st.output;
    previous = st.output;
    stages.push_back(v);
  }
  if (stages.empty())
    throw InputError(op.where, fmt::format("operator '{}' has no stages", op.name));
  return stages;
}

VectorKernel::VectorKernel(const Operator& op, int threads)
    : stages_(vector_stages(op)),
      rows_(op.dims[0].size),
      cols_(op.dims[1].size),
      threads_(threads > 0 ? threads : omp_get_num_procs()) {
  const int64_t row_bytes = std::max<int64_t>(cols_, 1) * static_cast<int64_t>(sizeof(float));
  block_rows_ = std::max<int64_t>(1, kFusedBufferBytes / row_bytes);
}

void VectorKernel::run(std::span<float* const> tensors) const {
  const int64_t rows = rows_, cols = cols_, block = block_rows_;
  const int64_t blocks = (rows + block - 1) / block;
  const size_t last = stages_.size() - 1;
#pragma omp parallel num_threads(threads_)
  {
    // A few rows per thread, allocated once per call (small next to any timed call).
    std::vector<float> buffer(stages_.size() > 1 ? static_cast<size_t>(block * cols) : 0);
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t r0 = b * block, n = std::min(block, rows - r0);
      for (size_t s = 0; s < stages_.size(); ++s) {
        const VectorStage& st = stages_[s];
        const float* in =
            s == 0 ? tensors[static_cast<size_t>(st.input)] + r0 * cols : buffer.data();
        float* out =
            s == last ? tensors[static_cast<size_t>(st.output)] + r0 * cols : buffer.data();
        apply_rows(st, tensors, in, out, r0, n, cols);
      }
    }
  }
}

void VectorKernel::run_unfused(std::span<float* const> tensors) const {
  const int64_t rows = rows_, cols = cols_, block = block_rows_;
  const int64_t blocks = (rows + block - 1) / block;
#pragma omp parallel num_threads(threads_)
  for (const VectorStage& st : stages_) {
#pragma omp for schedule(static)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t r0 = b * block, n = std::min(block, rows - r0);
      apply_rows(st, tensors, tensors[static_cast<size_t>(st.input)] + r0 * cols,
                 tensors[static_cast<size_t>(st.output)] + r0 * cols, r0, n, cols);
    }
  }
}

}  // namespace ts::host
