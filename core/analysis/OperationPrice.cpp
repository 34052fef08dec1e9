#include "analysis/OperationPrice.hpp"

namespace ts {

double priced_ops_per_point(const Stage& stage, const ComputeCapability& unit) {
  if (!unit.operation_cost) return stage.ops_per_point;
  double priced = 0;
  for (size_t k = 0; k < kOperationKinds; ++k)
    priced += stage.operations[k] * (*unit.operation_cost)[k];
  return priced;
}

}  // namespace ts
