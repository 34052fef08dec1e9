#include "workload/OperatorSpec.hpp"

#include <fmt/format.h>

#include <cctype>

#include "common/InputError.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts {

std::string operator_spec(const Operator& op) {
  std::string text = fmt::format("{{name: {}, type: {}", op.name, to_string(op.type));
  if (is_gemm(op)) {
    for (const Dimension& d : op.dims) text += fmt::format(", {}: {}", d.name, d.size);
  } else if (!op.stages.empty() && (op.type == OperatorType::fused || op.stages.size() == 1) &&
             op.find_dim("R") >= 0 && op.find_dim("C") >= 0) {
    if (op.type == OperatorType::fused) {
      std::string steps;
      for (const Stage& s : op.stages) {
        // A repeated step is named with its index (`add3`); the step itself has no digits.
        std::string step = s.name;
        while (!step.empty() && std::isdigit(static_cast<unsigned char>(step.back())))
          step.pop_back();
        steps += (steps.empty() ? "" : ", ") + step;
      }
      text += fmt::format(", steps: [{}]", steps);
    }
    text += fmt::format(", rows: {}, cols: {}", op.dims[static_cast<size_t>(op.find_dim("R"))].size,
                        op.dims[static_cast<size_t>(op.find_dim("C"))].size);
  } else {
    return {};  // einsum operators are kept by their key only
  }
  text += fmt::format(", dtype: {}}}", to_string(op.primary_dtype()));
  return text;
}

Operator operator_from_spec(const std::string& spec, const std::string& file_name) {
  if (spec.empty())
    throw InputError(SourceLocation{file_name, 1, 1},
                     "the operator has no stored spec (einsum operators cannot be rebuilt)");
  Workload w = parse_workload(
      "version: 1\nkind: workload\nname: spec\noperators:\n  - " + spec + "\n", file_name);
  return w.operators.at(0);
}

}  // namespace ts
