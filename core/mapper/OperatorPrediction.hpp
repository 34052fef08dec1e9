#pragma once
// One operator's prediction from a mapping file or from the mapper: what `predict` runs per row.
#include "analysis/Prediction.hpp"
#include "mapper/Mapper.hpp"

namespace ts {

struct OperatorPredictionOptions {
  const Mapping* mapping = nullptr;  // concrete, or a template with free factors; null: the mapper
  MapperOptions mapper;
};

// Throws InputError when the mapping does not fit the operator or the graph, or when the mapper
// finds no valid mapping.
// `resolved`, when given, receives the concrete mapping that was evaluated.
Prediction predict_operator(const Operator& op, const ArchitectureGraph& graph,
                            const OperatorPredictionOptions& options,
                            MappingProgram* resolved = nullptr);

// The concrete program predict_operator evaluates (for benchmarks and the explain view).
MappingProgram resolve_mapping(const Operator& op, const ArchitectureGraph& graph,
                               const OperatorPredictionOptions& options,
                               std::string* origin = nullptr);

}  // namespace ts
