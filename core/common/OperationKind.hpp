#pragma once
// The kinds of element operation a vector step performs, counted per kind (workload stages) and
// priced per kind (compute capabilities): a unit's basic operation (multiply, add, fused
// multiply-add, max, compare) is what its ops_per_cycle counts; an exponential, a division or a
// square root takes several of its slots (docs/formats.md, "Operation kinds").
#include <array>
#include <optional>
#include <string_view>

namespace ts {

enum class OperationKind { basic, exp, div, sqrt };
inline constexpr size_t kOperationKinds = 4;

// Per kind, indexed by OperationKind: counts per point of a stage, or costs in basic operations.
using OperationCounts = std::array<double, kOperationKinds>;

std::string_view to_string(OperationKind kind);
std::optional<OperationKind> parse_operation_kind(std::string_view text);
// "basic, exp, div, sqrt": every name parse_operation_kind takes, for messages.
std::string_view operation_kind_names();

inline double& count_of(OperationCounts& counts, OperationKind kind) {
  return counts[static_cast<size_t>(kind)];
}
inline double count_of(const OperationCounts& counts, OperationKind kind) {
  return counts[static_cast<size_t>(kind)];
}

// The sum over kinds: a stage's operations per point at one slot each.
double total_count(const OperationCounts& counts);

}  // namespace ts
