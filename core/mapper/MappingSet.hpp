#pragma once
// A set of mappings for one operator that tests whether the model ranks mappings: the mapper's
// best few and seeded draws from the valid space of the graph's template, all distinct trees.
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"

namespace ts {

struct NamedProgram {
  std::string name;  // <op>-top1.., <op>-draw1..
  MappingProgram program;
};

// `count` distinct concrete mappings (fewer only when the space has fewer valid points): the
// mapper's top 3, then uniform draws (seeded by `seed` and the operator's name) predicted at most
// 20x slower than the best, which keeps the measurement of a set bounded.
// `tmpl`: the template to search (default: the graph's for the operator's class).
// `converged`, when given, receives whether the search for the top mappings converged.
std::vector<NamedProgram> suite_mappings(const Operator& op, const ArchitectureGraph& graph,
                                         size_t count, uint64_t seed, const MapperOptions& options,
                                         const Mapping* tmpl = nullptr, bool* converged = nullptr);

}  // namespace ts
