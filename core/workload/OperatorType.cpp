#include "workload/OperatorType.hpp"

#include <array>
#include <utility>

namespace ts {
namespace {

// The names the file formats use; an entry per enumerator, in its order.
constexpr std::array<std::pair<OperatorType, std::string_view>, 23> kNames{{
    {OperatorType::gemm, "gemm"},
    {OperatorType::batched_gemm, "batched_gemm"},
    {OperatorType::linear, "linear"},
    {OperatorType::add, "add"},
    {OperatorType::mul, "mul"},
    {OperatorType::bias, "bias"},
    {OperatorType::scale, "scale"},
    {OperatorType::mask, "mask"},
    {OperatorType::relu, "relu"},
    {OperatorType::gelu, "gelu"},
    {OperatorType::softmax, "softmax"},
    {OperatorType::layernorm, "layernorm"},
    {OperatorType::rmsnorm, "rmsnorm"},
    {OperatorType::rope, "rope"},
    {OperatorType::silu_mul, "silu_mul"},
    {OperatorType::quant_gemm, "quant_gemm"},
    {OperatorType::lut_gemm, "lut_gemm"},
    {OperatorType::grouped_gemm, "grouped_gemm"},
    {OperatorType::decode_attention, "decode_attention"},
    {OperatorType::prefill_attention, "prefill_attention"},
    {OperatorType::fused, "fused"},
    {OperatorType::einsum, "einsum"},
    {OperatorType::conv2d, "conv2d"},
}};

constexpr bool in_enum_order() {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (static_cast<size_t>(kNames[i].first) != i) return false;
  return true;
}
static_assert(in_enum_order(), "kNames lists every OperatorType once, in the enum's order");

}  // namespace

std::string_view to_string(OperatorType type) { return kNames[static_cast<size_t>(type)].second; }

std::optional<OperatorType> parse_operator_type(std::string_view text) {
  for (const auto& [type, name] : kNames)
    if (name == text) return type;
  return std::nullopt;
}

std::vector<std::string> operator_type_names() {
  std::vector<std::string> names;
  for (const auto& entry : kNames) names.emplace_back(entry.second);
  return names;
}

bool is_gemm(OperatorType type) {
  return type == OperatorType::gemm || type == OperatorType::batched_gemm ||
         type == OperatorType::linear;
}

bool is_vector_step(OperatorType type) {
  return type >= OperatorType::add && type <= OperatorType::layernorm;
}

}  // namespace ts
