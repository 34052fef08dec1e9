#pragma once
// One operator on one graph, as the GUI needs it: the prediction, the concrete mapping behind it
// as text (so that the same mapping can be replayed on an edited graph), or why there is none.
// Plain C++ without Qt, so that worker threads and headless reports can call it.
#include <memory>
#include <string>

#include "analysis/Prediction.hpp"
#include "mapper/Mapper.hpp"

namespace ts {

struct OperatorOutcome {
  bool ok = false;
  Prediction prediction;
  // What bounds the device time (compute:<node> or edge:<a>-><b>), even where the launch
  // overhead is larger and Prediction::bound_by says "launch".
  std::string device_bound;
  std::string mapping_yaml;  // the concrete mapping that was evaluated
  std::string error;         // file:line:column: message, when !ok
  // The mapper was stopped through MapperOptions::cancel (!ok): how far its search got.
  bool cancelled = false;
  uint64_t mapper_evaluations = 0;
  double mapper_space_size = 0;
};

// The mapper's choice for the operator on the graph (the graph's template or the default one).
// With options.cancel set, the search stops part-way and the outcome says so (cancelled).
// `start_yaml`, when not empty, is a concrete mapping (the one shown before a what-if edit) that
// the search starts from and keeps unless it finds a strictly faster one.
OperatorOutcome map_operator(const Operator& op, const ArchitectureGraph& graph,
                             const MapperOptions& options, const std::string& start_yaml = {});

// A resolved mapping with what the analysis found for it. The program points into `op` and
// `graph`: keep both alive as long as this.
struct MappingEvaluation {
  std::unique_ptr<MappingProgram> program;  // null when the mapping does not compile
  AnalysisResult result;
  std::string error;  // compile error or why the evaluation is invalid (file:line: message)
  bool valid() const { return program && error.empty(); }
};

// Compiles a concrete mapping (mapping_yaml's text) for the operator on the graph and evaluates
// it. An invalid mapping (a buffer that no longer fits) keeps its program and result, so that
// a view can show the failing node.
MappingEvaluation evaluate_mapping_text(const Operator& op, const ArchitectureGraph& graph,
                                        const std::string& mapping_yaml);

// The fixed-mapping what-if: the same mapping, re-evaluated on (an edited copy of) the graph.
OperatorOutcome evaluate_fixed_mapping(const Operator& op, const ArchitectureGraph& graph,
                                       const std::string& mapping_yaml);

}  // namespace ts
