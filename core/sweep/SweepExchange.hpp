#pragma once
// Monotone by construction across a sweep's points (docs/sweep.md, "Mappings exchanged"): each
// point's search ran alone, and its path depends on the point's costs, so a point that dominates
// another (more bandwidth, a larger buffer) could end in a worse local optimum and be predicted
// slower. Once every point is stored, each operator at each point also tries the mappings the
// other points' searches found (mapper/MappingExchange) and takes one that compiles, fits and is
// strictly faster there.
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "measure/SweepPointRecord.hpp"
#include "sweep/ArchitectureSweep.hpp"

namespace ts {

struct SweepExchangeResult {
  size_t replaced = 0;                   // operator times that took another point's mapping
  std::vector<size_t> changed_points;    // indices into the points given, in order
  bool cancelled = false;                // stopped through `cancel`: nothing was changed
};

// Exchanges the mappings among `points` (stored points of `sweep`, any order) and rewrites the
// operators and totals of those that changed. Operators without a mapping (none was valid, or a
// record from before mappings were kept) are left as they are and pass nothing on. `progress` is
// called with (operators done, operators) after each operator; `cancel` is polled between them.
SweepExchangeResult exchange_sweep_mappings(const ArchitectureSweep& sweep,
                                            std::vector<SweepPointRecord>& points,
                                            const std::atomic<bool>* cancel = nullptr,
                                            const std::function<void(size_t, size_t)>& progress = {});

}  // namespace ts
