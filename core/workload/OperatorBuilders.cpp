#include "workload/OperatorBuilders.hpp"

#include <stdexcept>

namespace ts {
namespace {

const VectorStepInfo& step_info(std::string_view step) {
  if (const VectorStepInfo* info = find_vector_step(step)) return *info;
  throw std::invalid_argument("unknown vector step '" + std::string(step) + "'");
}

int add_tensor(Operator& op, std::string name, std::vector<int> dims, DataType dtype) {
  op.tensors.push_back(TensorSpec{std::move(name), std::move(dims), dtype});
  return static_cast<int>(op.tensors.size()) - 1;
}

// A name that repeats gets the 1-based step index, so that every tensor and every stage of a
// chain can be named in a mapping: the second `add`, when it is step 3, is stage `add3` and
// reads `Z3`.
std::string indexed(std::string_view base, bool taken, size_t step) {
  return taken ? std::string(base) + std::to_string(step + 1) : std::string(base);
}
std::string tensor_name(const Operator& op, std::string_view base, size_t step) {
  return indexed(base, op.find_tensor(base) >= 0, step);
}
std::string stage_name(const Operator& op, std::string_view base, size_t step) {
  bool taken = false;
  for (const Stage& s : op.stages) taken = taken || s.name == base;
  return indexed(base, taken, step);
}

Operator make_matmul(std::string name, OperatorType type, std::vector<Dimension> dims,
                     std::vector<std::pair<std::string, std::vector<int>>> tensors, DataType dtype,
                     std::optional<DataType> out_dtype) {
  Operator op;
  op.name = std::move(name);
  op.type = type;
  op.dims = std::move(dims);
  // Room for a linear's bias and output too: tables of measurements build 100,000 of these.
  op.tensors.reserve(tensors.size() + 2);
  for (auto& [tensor, tdims] : tensors) add_tensor(op, std::move(tensor), std::move(tdims), dtype);
  op.tensors[2].dtype = out_dtype.value_or(dtype);
  Stage stage;
  stage.name = std::string(to_string(type));
  stage.op_class = OpClass::matmul;
  stage.inputs = {0, 1};
  stage.output = 2;
  stage.dims.resize(op.dims.size());
  for (size_t d = 0; d < op.dims.size(); ++d) stage.dims[d] = static_cast<int>(d);
  set_operations(stage, {1, 0, 0, 0});  // one multiply-accumulate
  op.stages.reserve(2);
  op.stages.push_back(std::move(stage));
  return op;
}

}  // namespace

Operator make_gemm(std::string name, int64_t m, int64_t n, int64_t k, DataType dtype,
                   std::optional<DataType> out_dtype) {
  // dims M=0 N=1 K=2
  return make_matmul(std::move(name), OperatorType::gemm, {{"M", m}, {"N", n}, {"K", k}},
                     {{"A", {0, 2}}, {"B", {2, 1}}, {"C", {0, 1}}}, dtype, out_dtype);
}

Operator make_batched_gemm(std::string name, int64_t batch, int64_t m, int64_t n, int64_t k,
                           DataType dtype, std::optional<DataType> out_dtype) {
  // dims B=0 M=1 N=2 K=3
  return make_matmul(std::move(name), OperatorType::batched_gemm,
                     {{"B", batch}, {"M", m}, {"N", n}, {"K", k}},
                     {{"A", {0, 1, 3}}, {"W", {0, 3, 2}}, {"C", {0, 1, 2}}}, dtype, out_dtype);
}

Operator make_linear(std::string name, int64_t m, int64_t n, int64_t k, DataType dtype) {
  // dims M=0 N=1 K=2, the gemm's stage and tensors A, W, C (W: the layer's weight, as PyTorch
  // names it), then the bias step of a fused chain over R = M, C = N: it reads the product and a
  // row input and writes the output Y.
  Operator op = make_matmul(std::move(name), OperatorType::linear, {{"M", m}, {"N", n}, {"K", k}},
                            {{"A", {0, 2}}, {"W", {2, 1}}, {"C", {0, 1}}}, dtype, std::nullopt);
  op.stages.front().name = "gemm";
  const VectorStepInfo& info = step_info("bias");
  Stage bias;
  bias.name = std::string(info.name);
  bias.op_class = info.op_class;
  set_operations(bias, info.operations);
  bias.dims = {0, 1};
  bias.inputs = {op.stages.front().output, add_tensor(op, "bias", {1}, dtype)};
  bias.output = add_tensor(op, "Y", {0, 1}, dtype);
  op.stages.push_back(std::move(bias));
  return op;
}

Operator make_vector_op(std::string name, std::string_view step, int64_t rows, int64_t cols,
                        DataType dtype) {
  Operator op = make_fused_chain(std::move(name), {std::string(step)}, rows, cols, dtype);
  op.type = step_info(step).type;
  return op;
}

Operator make_fused_chain(std::string name, const std::vector<std::string>& steps, int64_t rows,
                          int64_t cols, DataType dtype) {
  if (steps.empty()) throw std::invalid_argument("a fused chain needs at least one step");
  Operator op;
  op.name = std::move(name);
  op.type = OperatorType::fused;
  op.dims = {{"R", rows}, {"C", cols}};
  const std::vector<int> full{0, 1}, row{1};
  int previous = add_tensor(op, "X", full, dtype);
  for (size_t i = 0; i < steps.size(); ++i) {
    const VectorStepInfo& info = step_info(steps[i]);
    Stage stage;
    stage.name = stage_name(op, info.name, i);
    stage.op_class = info.op_class;
    set_operations(stage, info.operations);
    stage.dims = full;
    stage.inputs.push_back(previous);
    for (auto extra : info.full_inputs)
      stage.inputs.push_back(add_tensor(op, tensor_name(op, extra, i), full, dtype));
    for (auto extra : info.row_inputs)
      stage.inputs.push_back(add_tensor(op, tensor_name(op, extra, i), row, dtype));
    bool last = i + 1 == steps.size();
    std::string output = last ? "Y" : "T";
    if (!last) output += std::to_string(i + 1);
    stage.output = add_tensor(op, output, full, dtype);
    previous = stage.output;
    op.stages.push_back(std::move(stage));
  }
  return op;
}

}  // namespace ts
