#include "trace/TraceOperatorConversion.hpp"

#include <fmt/format.h>

#include <array>

#include "common/CheckedArithmetic.hpp"
#include "common/InputError.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLimits.hpp"

namespace ts {
namespace {

using Shape = std::vector<int64_t>;

// `aten::_softmax` -> `softmax`, `aten::add_` -> `add`: the namespace, a private underscore and
// the in-place underscore do not change what is computed.
std::string_view base_name(std::string_view name) {
  if (const size_t colons = name.rfind("::"); colons != std::string_view::npos)
    name.remove_prefix(colons + 2);
  while (!name.empty() && name.front() == '_') name.remove_prefix(1);
  while (!name.empty() && name.back() == '_') name.remove_suffix(1);
  return name;
}

bool positive(const Shape& s) {
  for (int64_t d : s)
    if (d <= 0) return false;
  return !s.empty();
}

std::string shape_text(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// The sizes folded into one dimension (the rows of a vector step, the M of a linear layer, a
// batch): more than kLargestDimensionSize is an operator no workload may hold (the rule of
// workload/WorkloadLimits.hpp), refused at the operator's record.
int64_t product(const Shape& s, size_t first, size_t last, const SourceLocation& where,
                const TraceOperator& op) {
  int64_t p = 1;
  for (size_t i = first; i < last; ++i) {
    const std::optional<int64_t> next = checked_mul(p, s[i]);
    if (!next || *next > kLargestDimensionSize)
      throw InputError(where,
                       fmt::format("operator '{}': its input {} makes a size of {}; expected a "
                                   "size of at most {} (a workload's largest)",
                                   op.name, shape_text(s),
                                   next ? std::to_string(*next) : "more than 64 bits hold",
                                   kLargestDimensionSize));
    p = *next;
  }
  return p;
}

struct Inputs {
  const TraceOperator& op;
  const SourceLocation& where;
  int64_t product(const Shape& s, size_t first, size_t last) const {
    return ts::product(s, first, last, where, op);
  }
  const Shape* at(size_t i) const {
    return i < op.input_shapes.size() && positive(op.input_shapes[i]) ? &op.input_shapes[i]
                                                                      : nullptr;
  }
  // The dtype of the first tensor input: the builders take one dtype for all tensors.
  std::optional<DataType> dtype() const {
    for (size_t i = 0; i < op.input_shapes.size() && i < op.input_dtypes.size(); ++i)
      if (!op.input_shapes[i].empty()) return trace_data_type(op.input_dtypes[i]);
    return std::nullopt;
  }
};

std::string sizes_text(std::initializer_list<int64_t> sizes) {
  std::string out;
  for (int64_t s : sizes) {
    if (!out.empty()) out += 'x';
    out += std::to_string(s);
  }
  return out;
}

std::optional<Operator> gemm(const Inputs& in, std::string_view base, const Shape& a,
                             const Shape& b, DataType t) {
  // A[..., M, K] x B[K, N]: leading dims of A fold into M (a linear layer over tokens).
  if (a.size() < 2 || b.size() != 2 || a.back() != b[0]) return std::nullopt;
  const int64_t m = in.product(a, 0, a.size() - 1), k = a.back(), n = b[1];
  return make_gemm(fmt::format("{}_{}_{}", base, sizes_text({m, n, k}), to_string(t)), m, n, k, t);
}

std::optional<Operator> batched_gemm(const Inputs& in, std::string_view base, const Shape& a,
                                     const Shape& b, DataType t) {
  // A[..., M, K] x B[..., K, N] with the same leading (batch) dims.
  if (a.size() < 3 || b.size() != a.size() || a[a.size() - 1] != b[b.size() - 2]) return {};
  for (size_t i = 0; i + 2 < a.size(); ++i)
    if (a[i] != b[i]) return std::nullopt;
  const int64_t batch = in.product(a, 0, a.size() - 2), m = a[a.size() - 2], k = a.back(),
                n = b.back();
  return make_batched_gemm(
      fmt::format("{}_{}_{}", base, sizes_text({batch, m, n, k}), to_string(t)), batch, m, n, k, t);
}

// A vector step over the input's last dimension (C) and all the others folded into rows (R).
std::optional<Operator> vector_op(const Inputs& in, std::string_view base, std::string_view step,
                                  const Shape& x, DataType t) {
  const int64_t rows = in.product(x, 0, x.size() - 1), cols = x.back();
  // The step joins the name when it is not the operator's own (`add_bias_...`, `add_scale_...`):
  // one framework operator may become different steps at the same sizes.
  const std::string prefix = base == step ? std::string(base) : fmt::format("{}_{}", base, step);
  return make_vector_op(fmt::format("{}_{}_{}", prefix, sizes_text({rows, cols}), to_string(t)),
                        step, rows, cols, t);
}

// add / mul with a second operand: a tensor of the same shape (add, mul), a row vector over C
// (bias, for add), or a scalar (scale).
std::optional<Operator> binary(std::string_view base, std::string_view step, const Inputs& in,
                               DataType t) {
  const Shape* x = in.at(0);
  if (!x) return std::nullopt;
  const Shape* y = in.at(1);
  if (y && *y == *x) return vector_op(in, base, step, *x, t);
  if (y && step == "add" && y->size() == 1 && (*y)[0] == x->back())
    return vector_op(in, base, "bias", *x, t);
  if (!y || in.product(*y, 0, y->size()) == 1) return vector_op(in, base, "scale", *x, t);
  return std::nullopt;  // a broadcast tilescope has no step for
}

struct NamedConversion {
  std::array<std::string_view, 6> names;  // base names (base_name), empty-padded
  std::optional<Operator> (*convert)(std::string_view base, const Inputs& in, DataType t);
};

const std::array<NamedConversion, 12> kConversions{{
    {{"mm"},
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(0) || !in.at(1)) return std::nullopt;
       return gemm(in, b, *in.at(0), *in.at(1), t);
     }},
    {{"addmm"},  // (bias, mat1, mat2)
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(1) || !in.at(2)) return std::nullopt;
       return gemm(in, b, *in.at(1), *in.at(2), t);
     }},
    {{"bmm"},
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(0) || !in.at(1)) return std::nullopt;
       return batched_gemm(in, b, *in.at(0), *in.at(1), t);
     }},
    {{"baddbmm"},  // (self, batch1, batch2)
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(1) || !in.at(2)) return std::nullopt;
       return batched_gemm(in, b, *in.at(1), *in.at(2), t);
     }},
    {{"matmul"},
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(0) || !in.at(1)) return std::nullopt;
       if (in.at(1)->size() == 2) return gemm(in, b, *in.at(0), *in.at(1), t);
       return batched_gemm(in, b, *in.at(0), *in.at(1), t);
     }},
    {{"linear"},  // (input[..., K], weight[N, K], bias): y = x W^T + b
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       const Shape *x = in.at(0), *w = in.at(1);
       if (!x || !w || w->size() != 2) return std::nullopt;
       return gemm(in, b, *x, Shape{(*w)[1], (*w)[0]}, t);
     }},
    {{"softmax", "log_softmax", "softmax_backward_data", "log_softmax_backward_data"},
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(0)) return std::nullopt;
       return vector_op(in, b, "softmax", *in.at(0), t);
     }},
    {{"layer_norm", "native_layer_norm", "native_layer_norm_backward"},
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(0)) return std::nullopt;
       return vector_op(in, b, "layernorm", *in.at(0), t);
     }},
    {{"gelu", "gelu_backward", "relu", "threshold_backward"},
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(0)) return std::nullopt;
       const bool relu = b == "relu" || b == "threshold_backward";
       return vector_op(in, b, relu ? "relu" : "gelu", *in.at(0), t);
     }},
    {{"add", "sub"},
     [](std::string_view b, const Inputs& in, DataType t) { return binary(b, "add", in, t); }},
    {{"mul", "div"},
     [](std::string_view b, const Inputs& in, DataType t) { return binary(b, "mul", in, t); }},
    // Dropout multiplies by a kept-mask it draws (its other arguments are p and train, not
    // tensors): one multiply per element over the input, like mul.
    {{"dropout", "native_dropout", "fused_dropout", "native_dropout_backward"},
     [](std::string_view b, const Inputs& in, DataType t) -> std::optional<Operator> {
       if (!in.at(0)) return std::nullopt;
       return vector_op(in, b, "mul", *in.at(0), t);
     }},
}};

// An operator the names above do not know, read by the class its kernel's name says.
std::optional<Operator> by_kernel_class(std::string_view base, KernelClass c, const Inputs& in,
                                        DataType t) {
  const Shape* x = in.at(0);
  if (!x) return std::nullopt;
  switch (c) {
    case KernelClass::matmul:
      if (!in.at(1)) return std::nullopt;
      if (in.at(1)->size() == 2) return gemm(in, base, *x, *in.at(1), t);
      return batched_gemm(in, base, *x, *in.at(1), t);
    case KernelClass::softmax:
      return vector_op(in, base, "softmax", *x, t);
    case KernelClass::layernorm:
      return vector_op(in, base, "layernorm", *x, t);
    case KernelClass::elementwise:
      return binary(base, "add", in, t);
    case KernelClass::reduction:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<DataType> trace_data_type(std::string_view recorded) {
  // PyTorch records c10 scalar type names; older traces and other tools write the short ones.
  static const std::array<std::pair<std::string_view, DataType>, 9> kTypes{{
      {"float", DataType::fp32},
      {"c10::Half", DataType::fp16},
      {"c10::BFloat16", DataType::bf16},
      {"Half", DataType::fp16},
      {"BFloat16", DataType::bf16},
      {"c10::Float8_e4m3fn", DataType::fp8},
      {"c10::Float8_e5m2", DataType::fp8},
      {"signed char", DataType::int8},
      {"int", DataType::int32},
  }};
  for (const auto& [name, type] : kTypes)
    if (name == recorded) return type;
  return parse_data_type(recorded);  // fp16, bf16, fp32 as tilescope writes them
}

namespace {

std::optional<Operator> operator_of(const TraceOperator& op, std::optional<KernelClass> hint,
                                    const SourceLocation& where) {
  if (!op.has_shapes) return std::nullopt;
  const Inputs in{op, where};
  const std::optional<DataType> dtype = in.dtype();
  if (!dtype) return std::nullopt;
  const std::string_view base = base_name(op.name);
  std::string safe_base;  // names go into YAML files and the store: letters, digits, '_'
  for (char c : base) safe_base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (safe_base.empty()) safe_base = "op";
  for (const NamedConversion& conversion : kConversions)
    for (std::string_view name : conversion.names)
      if (!name.empty() && name == base) return conversion.convert(safe_base, in, *dtype);
  if (hint) return by_kernel_class(safe_base, *hint, in, *dtype);
  return std::nullopt;
}

}  // namespace

std::optional<Operator> tilescope_operator_of(const TraceOperator& op,
                                              std::optional<KernelClass> hint,
                                              const SourceLocation& where) {
  std::optional<Operator> out = operator_of(op, hint, where);
  // The rule every workload's operator keeps (the same check as the workload loader's).
  if (out) check_operator_sizes(*out, where, "operator '" + op.name + "' (" + out->name + ")");
  return out;
}

}  // namespace ts
