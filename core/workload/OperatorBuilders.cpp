#include "workload/OperatorBuilders.hpp"

#include <stdexcept>

namespace ts {
namespace {

const VectorStepInfo& step_info(std::string_view step) {
  if (const VectorStepInfo* info = find_vector_step(step)) return *info;
  throw std::invalid_argument("unknown vector step '" + std::string(step) + "'");
}

int add_tensor(Operator& op, std::string name, std::vector<int> dims, DataType dtype) {
  op.tensors.push_back(TensorSpec{std::move(name), std::move(dims), dtype, {}});
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

Operator make_conv2d(std::string name, const Conv2dSizes& z, DataType dtype) {
  if (z.groups < 1 || z.c % z.groups != 0 || z.m % z.groups != 0)
    throw std::invalid_argument("groups " + std::to_string(z.groups) + " must divide C " +
                                std::to_string(z.c) + " and M " + std::to_string(z.m));
  auto out_size = [&](int64_t in, int64_t taps, const char* axis) {
    const int64_t reach = z.dilation * (taps - 1) + 1;  // rows one window covers
    if (in + 2 * z.pad < reach)
      throw std::invalid_argument(std::string("the window covers ") + std::to_string(reach) +
                                  " rows, more than the " + std::to_string(in + 2 * z.pad) +
                                  " of the padded " + axis);
    return (in + 2 * z.pad - reach) / z.stride + 1;
  };
  Operator op;
  op.name = std::move(name);
  op.type = OperatorType::conv2d;
  const bool grouped = z.groups > 1;
  if (grouped) op.dims.push_back({"G", z.groups});
  op.dims.push_back({"N", z.n});
  op.dims.push_back({"M", z.m / z.groups});
  op.dims.push_back({"C", z.c / z.groups});
  op.dims.push_back({"P", out_size(z.h, z.r, "H")});
  op.dims.push_back({"Q", out_size(z.w, z.s, "W")});
  op.dims.push_back({"R", z.r});
  op.dims.push_back({"S", z.s});
  auto id = [&](std::string_view d) { return op.find_dim(d); };
  auto with_group = [&](std::vector<int> dims) {
    if (grouped) dims.insert(dims.begin(), id("G"));
    return dims;
  };
  add_tensor(op, "Weights", with_group({id("M"), id("C"), id("R"), id("S")}), dtype);
  std::vector<int> in_dims = with_group({id("C"), id("P"), id("R"), id("Q"), id("S")});
  in_dims.insert(in_dims.begin(), id("N"));
  const int in = add_tensor(op, "Inputs", std::move(in_dims), dtype);
  for (auto [a, b] : {std::pair{"P", "R"}, std::pair{"Q", "S"}}) {
    WindowAxis axis;
    axis.dims[0] = id(a);
    axis.dims[1] = id(b);
    axis.strides[0] = z.stride;
    axis.strides[1] = z.dilation;
    axis.pad = z.pad;
    op.tensors[static_cast<size_t>(in)].windows.push_back(axis);
  }
  std::vector<int> out_dims = with_group({id("M"), id("P"), id("Q")});
  out_dims.insert(out_dims.begin(), id("N"));
  add_tensor(op, "Outputs", std::move(out_dims), dtype);
  Stage stage;
  stage.name = "conv";
  stage.op_class = OpClass::matmul;
  stage.inputs = {0, 1};
  stage.output = 2;
  for (size_t d = 0; d < op.dims.size(); ++d) stage.dims.push_back(static_cast<int>(d));
  set_operations(stage, {1, 0, 0, 0});  // one multiply-accumulate
  op.stages.push_back(std::move(stage));
  return op;
}

// The sizes a conv2d operator was built from, read back from its dims and windows.
Conv2dSizes conv2d_sizes(const Operator& op) {
  auto size = [&](std::string_view d) {
    const int i = op.find_dim(d);
    return i < 0 ? int64_t{1} : op.dims[static_cast<size_t>(i)].size;
  };
  const WindowAxis& rows = op.tensors.at(1).windows.at(0);
  Conv2dSizes z;
  z.groups = size("G");
  z.n = size("N");
  z.c = size("C") * z.groups;
  z.m = size("M") * z.groups;
  z.r = size("R");
  z.s = size("S");
  z.stride = rows.strides[0];
  z.dilation = rows.strides[1];
  z.pad = rows.pad;
  // The smallest input that gives P rows: (P - 1) x stride + reach - 2 x pad.
  z.h = (size("P") - 1) * z.stride + z.dilation * (z.r - 1) + 1 - 2 * z.pad;
  z.w = (size("Q") - 1) * z.stride + z.dilation * (z.s - 1) + 1 - 2 * z.pad;
  return z;
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
