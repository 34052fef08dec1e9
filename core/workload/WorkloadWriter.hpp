#pragma once
// A Workload as a `kind: workload` file that load_workload reads back to the same operators
// (names, types, sizes, dtypes, counts): what `import ... --workload-out` writes from a trace.
// Operators are written as one-line entries (workload/OperatorSpec), so only the builders'
// types (gemm, batched_gemm, vector steps, fused chains) can be written, not einsum operators.
#include <string>

#include "workload/Operator.hpp"

namespace ts {

// Throws std::invalid_argument naming an operator that has no one-line form (an einsum one).
std::string workload_yaml(const Workload& workload);

}  // namespace ts
