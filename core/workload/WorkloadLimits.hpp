#pragma once
// The sizes an operator of a workload may have: one definition, used by the workload loader
// (WorkloadLoader) on what a person wrote and by every writer of operators (the trace and table
// importers, which store operators' specs and write `--workload-out` workloads), so that nothing
// tilescope writes is a workload or an operator its own loader refuses. docs/formats.md
// ("Sizes") states the rule:
// - each dimension's size is at most kLargestDimensionSize (Operator.hpp, just under 2^62);
// - a tensor's bytes (its sizes x bytes per element) and a stage's points (the product of its
//   sizes) each fit in 64 bits.
#include <cstddef>
#include <functional>
#include <string>

#include "common/InputError.hpp"
#include "workload/Operator.hpp"

namespace ts {

// Throws InputError when `op` breaks the rule: at `dim_where(d)` for dimension d (the size past
// the limit, or the factor where a product overflows), at `where` for the element size's factor.
// `label` names the operator in the message ("operator 'qkv'").
void check_operator_sizes(const Operator& op,
                          const std::function<SourceLocation(size_t dim)>& dim_where,
                          const SourceLocation& where, const std::string& label);

// The same, for an operator whose sizes all come from one place (a trace's record, a table's
// row): every error is at `where`.
void check_operator_sizes(const Operator& op, const SourceLocation& where,
                          const std::string& label);

}  // namespace ts
