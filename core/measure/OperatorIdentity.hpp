#pragma once
// How an operator and a mapping are keyed in the store, so that a measurement from any collector
// or import meets the prediction for the same operator and mapping.
#include <string_view>

#include "analysis/MappingProgram.hpp"
#include "measure/MeasurementRecord.hpp"
#include "workload/Operator.hpp"

namespace ts {

OperatorKey operator_key(const Operator& op, std::string_view suite);
// The hash is over the canonical text of the resolved tree (names, factors, orders, placements).
MappingRecord mapping_record(const MappingProgram& program, std::string_view name);

}  // namespace ts
