#include "workload/VectorStep.hpp"

namespace ts {

const std::vector<VectorStepInfo>& vector_step_table() {
  // Operations per element by kind {basic, exp, div, sqrt}, as the formulas of
  // host/VectorKernels.hpp compute them (their totals are the counts of the single figure that
  // came before: gelu 8, softmax 5, layernorm 8):
  //   gelu: x/2 (1 + tanh u) = x / (1 + e^{-2u}), u = sqrt(2/pi) (x + 0.044715 x^3): three
  //     multiplies and an add for the cubic, two multiplies by constants, one add to 1 (6
  //     basic), one exp, one division.
  //   softmax: max, subtract, exp, sum, and the division by the row sum, done as one reciprocal
  //     per row and a multiply per element (4 basic, 1 exp).
  //   layernorm: its mean, variance, normalisation and affine steps, 8 basic; its division and
  //     square root come once per row, not per element.
  // One row per step, kept as the table it is.
  // clang-format off
  static const std::vector<VectorStepInfo> table = {
      {VectorStep::add, OperatorType::add, "add", OpClass::elementwise, {1, 0, 0, 0}, {"Z"}, {}},
      {VectorStep::mul, OperatorType::mul, "mul", OpClass::elementwise, {1, 0, 0, 0}, {"Z"}, {}},
      {VectorStep::bias, OperatorType::bias, "bias", OpClass::elementwise, {1, 0, 0, 0}, {}, {"bias"}},
      {VectorStep::scale, OperatorType::scale, "scale", OpClass::elementwise, {1, 0, 0, 0}, {}, {}},
      {VectorStep::mask, OperatorType::mask, "mask", OpClass::elementwise, {1, 0, 0, 0}, {"Mask"}, {}},
      {VectorStep::relu, OperatorType::relu, "relu", OpClass::elementwise, {1, 0, 0, 0}, {}, {}},
      {VectorStep::gelu, OperatorType::gelu, "gelu", OpClass::elementwise, {6, 1, 1, 0}, {}, {}},
      {VectorStep::softmax, OperatorType::softmax, "softmax", OpClass::reduction, {4, 1, 0, 0}, {}, {}},
      {VectorStep::layernorm, OperatorType::layernorm, "layernorm", OpClass::reduction, {8, 0, 0, 0}, {}, {"gamma", "beta"}},
  };
  // clang-format on
  return table;
}

const VectorStepInfo* find_vector_step(std::string_view name) {
  for (const VectorStepInfo& s : vector_step_table())
    if (s.name == name) return &s;
  return nullptr;
}

const VectorStepInfo& vector_step_info(VectorStep step) {
  // The table lists the steps in the order of the enum.
  return vector_step_table()[static_cast<size_t>(step)];
}

bool is_vector_step(std::string_view name) { return find_vector_step(name) != nullptr; }

std::vector<std::string> vector_steps() {
  std::vector<std::string> names;
  for (const VectorStepInfo& s : vector_step_table()) names.emplace_back(s.name);
  return names;
}

}  // namespace ts
