// The vector operators: stages chained over blocks of rows. The loops of one stage are those of
// the instruction-set level in use (isa/VectorStageKernels.cpp).
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
#include "host/IsaKernels.hpp"
#include "workload/VectorStep.hpp"

namespace ts::host {
namespace {

// Runs stage `s` on rows [r0, r0 + rows) reading `in` and writing `out` (both at row r0).
void apply_rows(const VectorStage& s, std::span<float* const> tensors, const float* in, float* out,
                int64_t r0, int64_t rows, int64_t cols) {
  const bool full_extra =
      s.step == VectorStep::add || s.step == VectorStep::mul || s.step == VectorStep::mask;
  const float* full = full_extra ? tensors[static_cast<size_t>(s.extra[0])] + r0 * cols : nullptr;
  const float* row0 =
      !full_extra && s.extra[0] >= 0 ? tensors[static_cast<size_t>(s.extra[0])] : nullptr;
  const float* row1 = s.extra[1] >= 0 ? tensors[static_cast<size_t>(s.extra[1])] : nullptr;
  isa_kernels().apply_vector_stage(s.step, in, full, row0, row1, out, rows, cols);
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
