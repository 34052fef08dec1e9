#pragma once
// Mapping search: fills the free factors and loop orders of a template so that the predicted
// latency is lowest. Deterministic for a given budget and seed whatever the thread count:
// exhaustive when the space fits the budget, otherwise seeded sampling then coordinate descent.
#include <cstdint>
#include <optional>

#include "analysis/MappingProgram.hpp"
#include "tile/MappingTree.hpp"

namespace ts {

struct MapperOptions {
  uint64_t budget = 50000;  // evaluations per operator
  uint64_t seed = 0x7113c0bull;
  bool parallel = true;
};

struct MapperResult {
  MappingProgram program;  // the template with every free choice made
  double device_s = 0;
  uint64_t evaluations = 0;
  double space_size = 0;  // points in the search space
  bool exhaustive = false;
  bool found = false;  // false when no point of the space is valid
};

MapperResult search_mapping(const MappingProgram& template_program, const MapperOptions& options);

// The mapper's starting tree for an operator on a graph: the graph's template for the operator's
// class when it names one, else a chain of tiles along the shortest memory path to a compute node
// able to run it. Multi-stage operators get one op per stage in a sequential scope.
Mapping default_template(const Operator& op, const ArchitectureGraph& graph);
// Makes a template fit an operator: a single op node expands into one per stage.
Mapping instantiate_template(const Mapping& tmpl, const Operator& op);

}  // namespace ts
