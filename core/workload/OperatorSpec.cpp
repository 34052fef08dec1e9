#include "workload/OperatorSpec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

#include "common/InputError.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts {

std::string operator_spec(const Operator& op) {
  std::string text = fmt::format("{{name: {}, type: {}", op.name, to_string(op.type));
  auto size = [&](std::string_view dim) {
    return op.dims[static_cast<size_t>(op.find_dim(dim))].size;
  };
  if (is_gemm(op)) {
    for (const Dimension& d : op.dims) text += fmt::format(", {}: {}", d.name, d.size);
    const DataType out = op.tensors.at(2).dtype;
    if (out != op.primary_dtype()) text += fmt::format(", out_dtype: {}", to_string(out));
  } else if (op.type == OperatorType::conv2d) {
    const Conv2dSizes z = conv2d_sizes(op);
    text += fmt::format(", N: {}, C: {}, M: {}, H: {}, W: {}, R: {}, S: {}", z.n, z.c, z.m, z.h,
                        z.w, z.r, z.s);
    if (z.stride != 1) text += fmt::format(", stride: {}", z.stride);
    if (z.pad != 0) text += fmt::format(", pad: {}", z.pad);
    if (z.dilation != 1) text += fmt::format(", dilation: {}", z.dilation);
    if (z.groups != 1) text += fmt::format(", groups: {}", z.groups);
  } else if (op.type == OperatorType::rope) {
    text += fmt::format(", tokens: {}, heads: {}, head_dim: {}", size("T"), size("H"), size("D"));
  } else if (op.type == OperatorType::quant_gemm) {
    text += fmt::format(", M: {}, N: {}, K: {}, group: {}", size("M"), size("N"),
                        size("KG") * size("KI"), size("KI"));
  } else if (op.type == OperatorType::lut_gemm) {
    text += fmt::format(", M: {}, N: {}, K: {}, bits: {}, group: {}, key_bits: {}", size("M"),
                        size("N"), size("KS") * size("KB") * size("KI"), size("Q"),
                        size("KB") * size("KI"), size("KI"));
  } else if (op.type == OperatorType::grouped_gemm) {
    text += fmt::format(", tokens: [{}], N: {}, K: {}", fmt::join(op.group_rows, ", "), size("N"),
                        size("K"));
  } else if (op.type == OperatorType::decode_attention) {
    text += fmt::format(", batch_heads: {}, group: {}, context: {}, splits: {}, head_dim: {}",
                        size("B"), size("H"), size("S") * size("L"), size("S"), size("D"));
  } else if (op.type == OperatorType::prefill_attention) {
    text += fmt::format(", batch_heads: {}, group: {}, queries: {}, keys: {}, head_dim: {}",
                        size("B"), size("H"), size("M"), size("N"), size("D"));
  } else if (!op.stages.empty() &&
             (op.type == OperatorType::fused || op.type == OperatorType::rmsnorm ||
              op.stages.size() == 1) &&
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
