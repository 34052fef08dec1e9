#pragma once
// Every operator of a workload predicted on one graph, in the workload's order: the loop behind
// `tilescope predict`, shared with `compare`, `report --compare` and the GUI's Compare page, so
// that a comparison's rows are exactly the rows predict prints.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "analysis/Prediction.hpp"
#include "arch/ArchitectureGraph.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "mapper/SearchConvergence.hpp"
#include "workload/Operator.hpp"

namespace ts {

// Called before each operator is predicted: how many are done, of how many, and which is next.
using PredictionProgress = std::function<void(size_t done, size_t total, const Operator& next)>;

// A suite predicted on one graph: one prediction per operator, in order, and the operators whose
// mapper search ran out of budget while still improving (their mapping may not be the best), so
// that every face that shows the suite says so from this one value.
struct SuitePrediction {
  std::vector<Prediction> operators;
  UnconvergedSearches unconverged;
};

// predict_operator for each of `operators`, in order, with the same options. `programs`, when
// given, receives each concrete mapping evaluated (for files written only once all succeeded).
// Throws as predict_operator does, for the first operator that fails.
SuitePrediction predict_operators(const std::vector<const Operator*>& operators,
                                  const ArchitectureGraph& graph,
                                  const OperatorPredictionOptions& options,
                                  const PredictionProgress& progress = {},
                                  std::vector<MappingProgram>* programs = nullptr);

// The same for every operator of `workload`. `mappings`, when given, receives each operator's
// concrete mapping as mapping_yaml's text (what a comparison passes to the other graphs).
SuitePrediction predict_workload(const Workload& workload, const ArchitectureGraph& graph,
                                 const OperatorPredictionOptions& options,
                                 const PredictionProgress& progress = {},
                                 std::vector<std::string>* mappings = nullptr);

}  // namespace ts
