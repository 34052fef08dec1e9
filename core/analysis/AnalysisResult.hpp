#pragma once
// What the analysis found for one mapping, as a plain value: what --explain, the GUI's mapping
// page, the report and a prediction show. Made once from the scratch the hot path reuses
// (AnalysisScratch), so that no face reads the scratch or re-derives a figure from it.
#include <optional>
#include <vector>

#include "analysis/AccessCounts.hpp"
#include "analysis/TileAnalysis.hpp"

namespace ts {

// A buffer a tile places, in the bytes the capacity check counts: padded to the granule of the
// unit it feeds, both copies of a double buffer, its scale, and the parts resident together.
struct TileBuffer {
  int tensor = -1;  // into the operator's tensors
  NodeId memory;
  double bytes = 0;
};

struct NodeResult {
  std::vector<TileBuffer> buffers;  // tiles only; empty where the node places none
  // A tile the evaluation timed, for its case with no tails where there is one; none otherwise.
  std::optional<NodeReport> timing;
  // Spatial tiles of one iteration against the child instances that run them (in waves).
  int64_t spatial_tiles = 1;
  int64_t instances = 1;
};

struct AnalysisResult {
  MappingFailure failure;
  double device_s = std::numeric_limits<double>::infinity();  // +infinity when invalid
  BoundBy bound;
  std::vector<NodeResult> nodes;   // per program node
  std::vector<double> edge_bytes;  // per graph edge (EdgeId::index()), whole operator
  // per graph node (NodeId::index()), whole operator: partial sums a memory reads back to add
  // the next one to (`reduction: memory` on an edge into it)
  std::vector<double> read_back_bytes;
  std::vector<double> memory_usage;  // per program memory (MappingProgram::memories), bytes per
                                     // instance, as the capacity check counts them
  AccessCounts accesses;  // words read, filled, updated per memory and tensor (energy's counts)
  bool valid() const { return failure.kind == EvaluationFailure::none; }
};

// The result of the evaluation `scratch` holds for `program` (after evaluate).
AnalysisResult analysis_result(const MappingProgram& program, const AnalysisScratch& scratch);
// Evaluates `program` once and returns its result (for one-off evaluations, not the mapper).
AnalysisResult analyse(const MappingProgram& program);

// Throws InputError at the mapping node that makes the result invalid, saying what was expected.
void throw_if_invalid(const MappingProgram& program, const AnalysisResult& result);

}  // namespace ts
