#pragma once
// What builder made an operator: the `type:` of a workload file, the type column of a result
// store, the `type=` of a measurement plan. One table holds the names those files use, so that
// parsing and printing cannot drift apart, and the questions asked of a type are answered once.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

enum class OperatorType {
  gemm,
  batched_gemm,
  // torch.nn.Linear: a GEMM and its bias (make_linear); a matrix product, not a chain step
  linear,
  // vector steps, usable alone or chained in a fused operator (OperatorBuilders.hpp)
  add,
  mul,
  bias,
  scale,
  mask,
  relu,
  gelu,
  softmax,
  layernorm,
  // LLM inference operators (LlmOperators.hpp), each one kernel, not usable as chain steps
  rmsnorm,
  rope,
  silu_mul,
  quant_gemm,
  lut_gemm,
  grouped_gemm,
  decode_attention,
  prefill_attention,
  fused,   // a chain of vector steps
  einsum,  // any other einsum, read as written
  // a 2-D convolution (grouped and depthwise included) by its layer's sizes, an einsum whose
  // input has sliding-window axes (make_conv2d)
  conv2d,
};

std::string_view to_string(OperatorType type);
std::optional<OperatorType> parse_operator_type(std::string_view text);
// Every name, in the order of the enum, for messages that list what is known.
std::vector<std::string> operator_type_names();

// gemm, batched_gemm or linear: the matrix products with a tiled kernel and a library call.
bool is_gemm(OperatorType type);
bool is_vector_step(OperatorType type);

}  // namespace ts
