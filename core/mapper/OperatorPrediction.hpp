#pragma once
// One operator's prediction from a mapping file or from the mapper: what `predict` runs per row.
#include <stdexcept>

#include "analysis/Prediction.hpp"
#include "mapper/Mapper.hpp"

namespace ts {

// The mapper's search was stopped through MapperOptions::cancel: no prediction, and how far the
// search got (what a caller that cancelled may want to report).
class MapperCancelled : public std::runtime_error {
 public:
  MapperCancelled(uint64_t evaluations, double space_size, uint64_t budget);
  uint64_t evaluations;  // made before it stopped
  double space_size;     // points in the search space
  uint64_t budget;       // evaluations it would have made at most
};

struct OperatorPredictionOptions {
  const Mapping* mapping = nullptr;  // concrete, or a template with free factors; null: the mapper
  MapperOptions mapper;
  // A concrete mapping of the operator (the one shown before a what-if edit of the graph) that
  // the mapper starts from and keeps unless it finds a strictly faster one (MapperOptions::start).
  // Ignored when it does not compile on the graph or is not of the template's tree.
  const Mapping* start = nullptr;
};

// How the mapper's search went, for the faces that say whether it converged.
struct SearchSummary {
  bool searched = false;  // false: the mapping came from a file
  bool converged = false;
  uint64_t evaluations = 0;
  double space_size = 0;
};

// Throws InputError when the mapping does not fit the operator or the graph, or when the mapper
// finds no valid mapping; MapperCancelled when options.mapper.cancel stopped the search.
// `resolved`, when given, receives the concrete mapping that was evaluated.
Prediction predict_operator(const Operator& op, const ArchitectureGraph& graph,
                            const OperatorPredictionOptions& options,
                            MappingProgram* resolved = nullptr);

// The concrete program predict_operator evaluates (for benchmarks and the explain view).
MappingProgram resolve_mapping(const Operator& op, const ArchitectureGraph& graph,
                               const OperatorPredictionOptions& options,
                               std::string* origin = nullptr, SearchSummary* summary = nullptr);

}  // namespace ts
