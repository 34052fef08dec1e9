#pragma once
// What an exponential, a division and a square root cost on one core, measured with the vector
// kernels' own code (VectorMath.hpp) over rows that stay in L1, so that `calibrate host` can
// price each kind of operation in the graph (ComputeCapability::operation_cost, docs/host.md).
#include "common/OperationKind.hpp"

namespace ts::host {

// Seconds per element of one core applying one operation of `kind` (exp, div or sqrt; not
// basic, the unit the graph's FMA rate already measures) to a row of 1024 floats: one load per
// operand, the operation, one store, under `omp simd` as the kernels' loops are. The loop is
// bound by the operation, not by L1: a load and a store per 16 elements next to a dozen vector
// instructions (exp) or a divider busy for several cycles per vector.
double operation_seconds_per_element(OperationKind kind, double seconds);

}  // namespace ts::host
