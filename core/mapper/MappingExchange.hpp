#pragma once
// The mapper's answers for one operator on several graphs, made monotone: each graph's search
// also tries the best mappings found on the other graphs. A search's path depends on the graph's
// costs, so a faster graph can end in a worse local optimum than a slower one; a mapping that
// runs on both is a point of both search spaces, and a graph that dominates another is then never
// predicted slower because of the search (docs/mapper.md, "Monotone by construction").
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"  // the graph and the operator
#include "analysis/Prediction.hpp"

namespace ts {

// One operator's prediction on one graph, with the concrete mapping behind it.
struct OperatorOnGraph {
  bool ok = false;  // predicted; false: an error, left as it is
  Prediction prediction;
  std::string mapping_yaml;  // the concrete mapping (mapping_yaml's text)
};

// For `op` predicted on graphs[i] as *on[i]: every prediction that the mapper searched is
// replaced by the fastest mapping found on another graph that compiles, fits and is strictly
// faster on its graph; its origin then says where it was found. Predictions from a mapping file
// are kept as they are. Returns how many predictions were replaced.
size_t exchange_best_mappings(const Operator& op,
                              const std::vector<const ArchitectureGraph*>& graphs,
                              const std::vector<OperatorOnGraph*>& on);

// The same for every operator of a suite predicted on several graphs: predictions[g][i] is
// operators[i] on graphs[g], with mappings[g][i] its concrete mapping. A prediction without a
// mapping (empty text) or without a time (NaN: no valid mapping) is left as it is and passes
// nothing on. Returns how many predictions were replaced.
size_t exchange_suite_mappings(const std::vector<Operator>& operators,
                               const std::vector<const ArchitectureGraph*>& graphs,
                               const std::vector<std::vector<Prediction>*>& predictions,
                               const std::vector<std::vector<std::string>>& mappings);

}  // namespace ts
