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

// Called as each operator starts, one call at a time but from any thread: how many are done, of
// how many, and which starts. `done` never goes down from one call to the next.
using PredictionProgress = std::function<void(size_t done, size_t total, const Operator& next)>;

// A suite predicted on one graph: one prediction per operator, in order, and the operators whose
// mapper search ran out of budget while still improving (their mapping may not be the best), so
// that every face that shows the suite says so from this one value.
struct SuitePrediction {
  std::vector<Prediction> operators;
  UnconvergedSearches unconverged;
};

// predict_operator for each of `operators`, with the same options, spread over the threads of
// the calling arena (common/WorkThreads: run_with_threads(1, ...) is the serial loop); the rows
// come out in the operators' order and are the same whatever the threads, since each search is
// deterministic. `programs`, when given, receives each concrete mapping evaluated (for files
// written only once all succeeded). Throws as predict_operator does, for the first operator (in
// order) that fails; once options.mapper.cancel is set no operator starts and MapperCancelled
// comes out.
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
