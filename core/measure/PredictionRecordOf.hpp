#pragma once
// A prediction as the results store keeps it, beside the measurements it is compared with: the
// host collector's `measure` and the CUPTI plans and imports store theirs the same way.
#include <optional>
#include <string>

#include "analysis/Prediction.hpp"
#include "arch/ArchitectureGraph.hpp"
#include "measure/MeasurementRecord.hpp"

namespace ts {

// `chosen_yaml`: the mapping the mapper chose, as YAML, for a black-box measurement (no
// mapping of its own); empty otherwise.
PredictionRecord prediction_record(const Prediction& p, const OperatorKey& key,
                                   const std::optional<MappingRecord>& mapping,
                                   const ArchitectureGraph& g, const std::string& chosen_yaml);

}  // namespace ts
