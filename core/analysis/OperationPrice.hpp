#pragma once
// A stage's operations per point as a compute unit spends them: each kind (exp, div, ...) at its
// cost in the unit's basic operations (ComputeCapability::operation_cost), so that dividing by
// ops_per_cycle gives the cycles (docs/analysis.md, "Operation costs"). Computed once per op node
// when a mapping is compiled (ProgramNode::priced_ops_per_point), never per evaluation.
#include "arch/ArchitectureGraph.hpp"
#include "workload/Operator.hpp"

namespace ts {

// sum over kinds of stage.operations[k] x cost[k]; stage.ops_per_point itself when the unit
// prices no kinds (every kind costs 1), so that a graph without costs predicts what it did.
double priced_ops_per_point(const Stage& stage, const ComputeCapability& unit);

}  // namespace ts
