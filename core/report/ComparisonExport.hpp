#pragma once
// An ArchitectureComparison as files for programs, in full precision: `compare --format json`
// (schema_version 1) and `--format csv`, also the GUI's CSV export of its Compare table. Owned
// by the core so that every face writes the same columns (docs/formats.md, "compare").
#include <string>

#include "report/ArchitectureComparison.hpp"

namespace ts {

// The document, indented by two spaces: the workload, each graph with its totals, and each
// operator with its time, speed-up and bound on every graph.
std::string comparison_json(const ArchitectureComparison& comparison);

// One row per operator and graph, then one `total` row per graph, under a header:
// row,operator,type,shape,graph,graph_name,device_us,launch_overhead_us,time_us,speedup,
// bound_by,bound_moved
std::string comparison_csv(const ArchitectureComparison& comparison);

}  // namespace ts
