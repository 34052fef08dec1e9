#pragma once
// The vector steps, usable alone or chained into a fused operator (docs/formats.md, "Vector
// steps"): the one list that the builders, the loaders, the CSV importer and the host kernels
// read. A step works over rows R and columns C; X (or the previous step's output) is its first
// input, and some take extra inputs:
//   add, mul   Z over R x C         mask   Mask over R x C (additive)
//   bias       bias over C          layernorm   gamma, beta over C
//   scale, relu, gelu, softmax      none
#include <string>
#include <string_view>
#include <vector>

#include "common/DataType.hpp"
#include "common/OperationKind.hpp"
#include "workload/OperatorType.hpp"

namespace ts {

// The steps themselves: a switch over them lists these nine and nothing else (the operator types
// that are not steps cannot occur where a step is expected).
enum class VectorStep { add, mul, bias, scale, mask, relu, gelu, softmax, layernorm };

struct VectorStepInfo {
  VectorStep step;
  OperatorType type;      // the operator type of the step alone (make_vector_op)
  std::string_view name;  // to_string(type)
  OpClass op_class;
  OperationCounts operations;                 // per output element, by kind
  std::vector<std::string_view> full_inputs;  // extra inputs over [R, C]
  std::vector<std::string_view> row_inputs;   // extra inputs over [C]
};

// In the order of docs/formats.md.
const std::vector<VectorStepInfo>& vector_step_table();
// The step of that name, or null.
const VectorStepInfo* find_vector_step(std::string_view name);
// The row of a step.
const VectorStepInfo& vector_step_info(VectorStep step);

bool is_vector_step(std::string_view name);
std::vector<std::string> vector_steps();  // the names, for messages and type lists

}  // namespace ts
