#include "workload/VectorStep.hpp"

namespace ts {

const std::vector<VectorStepInfo>& vector_step_table() {
  // gelu counts the tanh form; softmax max, subtract, exp, sum, divide; layernorm its mean,
  // variance, normalisation and affine steps.
  static const std::vector<VectorStepInfo> table = {
      {VectorStep::add, "add", OpClass::elementwise, 1, {"Z"}, {}},
      {VectorStep::mul, "mul", OpClass::elementwise, 1, {"Z"}, {}},
      {VectorStep::bias, "bias", OpClass::elementwise, 1, {}, {"bias"}},
      {VectorStep::scale, "scale", OpClass::elementwise, 1, {}, {}},
      {VectorStep::mask, "mask", OpClass::elementwise, 1, {"Mask"}, {}},
      {VectorStep::relu, "relu", OpClass::elementwise, 1, {}, {}},
      {VectorStep::gelu, "gelu", OpClass::elementwise, 8, {}, {}},
      {VectorStep::softmax, "softmax", OpClass::reduction, 5, {}, {}},
      {VectorStep::layernorm, "layernorm", OpClass::reduction, 8, {}, {"gamma", "beta"}},
  };
  return table;
}

const VectorStepInfo* find_vector_step(std::string_view name) {
  for (const VectorStepInfo& s : vector_step_table())
    if (s.name == name) return &s;
  return nullptr;
}

const VectorStepInfo& vector_step_info(VectorStep step) {
  // The table lists the steps in the order of the enum, from add on.
  return vector_step_table()[static_cast<size_t>(step) - static_cast<size_t>(OperatorType::add)];
}

bool is_vector_step(std::string_view name) { return find_vector_step(name) != nullptr; }

std::vector<std::string> vector_steps() {
  std::vector<std::string> names;
  for (const VectorStepInfo& s : vector_step_table()) names.emplace_back(s.name);
  return names;
}

}  // namespace ts
