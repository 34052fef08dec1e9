#pragma once
// How many words each memory reads, is filled with and updates, per tensor, over a whole
// operator, as Timeloop counts them (docs/energy.md): the counts an energy table prices.
// - fills: words written into the memory from the level above (a tile's loads);
// - reads: words it serves to the level below or the unit (one read feeds every instance of a
//   multicast group; partial sums sent back down to be added to count here), and the partial
//   sums it reads back to add the next one to (a memory reduction, and the read half of every
//   read-modify-write where a unit writes its results);
// - updates: words the level below writes into it (partial sums, results; R partials summed by
//   a reduction network arrive as one, and the R - 1 saved are counted as spatial reductions).
// Counted once per evaluated mapping, off the mapper's hot path (access_counts).
#include <cstdint>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "analysis/TileAnalysis.hpp"

namespace ts {

struct TensorAccesses {
  NodeId memory;
  int tensor = -1;
  double reads = 0;
  double fills = 0;
  double updates = 0;
  double spatial_reductions = 0;
  // The read-modify-writes among the updates (updates of a word already there): counted in
  // `reads` too.
  double read_modify_writes = 0;
};

struct AccessCounts {
  std::vector<TensorAccesses> entries;  // per (memory, tensor) that moves anything, program order
  double operations = 0;                // the op nodes' points (a MAC counts one)
  const TensorAccesses* find(NodeId memory, int tensor) const;
};

// After an evaluation of `program` in `eval` (evaluate); empty where the mapping is invalid.
AccessCounts access_counts(const MappingProgram& program, const AnalysisScratch& eval);

}  // namespace ts
