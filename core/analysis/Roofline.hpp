#pragma once
// The datasheet roofline of an operator on a graph: the larger of its work over the peak rate of
// the units that declare its class and data type, and its tensors' bytes over the bandwidth of
// the graph's outermost memory. The baseline any model of a chip must beat (docs/gpus.md): it
// knows the chip's two headline figures and nothing of how a kernel uses them.
#include "arch/ArchitectureGraph.hpp"
#include "workload/Operator.hpp"

namespace ts {

struct Roofline {
  double compute_s = 0;  // work / peak; 0 when no unit declares the class (then bytes alone)
  double memory_s = 0;   // bytes of every input and output once / bandwidth
  double seconds() const { return compute_s > memory_s ? compute_s : memory_s; }
};

// Peak: over the compute nodes that declare each stage's class at the operator's data type (any
// data type when none does), ops_per_cycle x instances x clock, against the stage's points x its
// operations per point (both in the unit's operations: MACs for a matmul). Bandwidth: the largest
// memory's combined port, else its read port, else the fastest edge out of it.
Roofline roofline(const Operator& op, const ArchitectureGraph& graph);

}  // namespace ts
