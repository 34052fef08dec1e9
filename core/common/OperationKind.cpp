#include "common/OperationKind.hpp"

namespace ts {

namespace {
constexpr std::array<std::string_view, kOperationKinds> kNames = {"basic", "exp", "div", "sqrt"};
}

std::string_view to_string(OperationKind kind) { return kNames[static_cast<size_t>(kind)]; }

std::optional<OperationKind> parse_operation_kind(std::string_view text) {
  for (size_t k = 0; k < kOperationKinds; ++k)
    if (kNames[k] == text) return static_cast<OperationKind>(k);
  return std::nullopt;
}

std::string_view operation_kind_names() { return "basic, exp, div, sqrt"; }

double total_count(const OperationCounts& counts) {
  double total = 0;
  for (double c : counts) total += c;
  return total;
}

}  // namespace ts
