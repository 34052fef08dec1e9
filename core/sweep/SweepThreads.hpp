#pragma once
// Evaluates a sweep's pending points over local threads (common/WorkThreads, TBB): each thread
// takes the next point as it finishes one, so points that differ in cost by orders of magnitude
// still balance. What a rank of an MPI sweep does with its own points too (app/cli/SweepRanks).
#include <atomic>
#include <functional>
#include <vector>

#include "sweep/SweepSpace.hpp"

namespace ts {

// Calls `finished` with each point's record, one call at a time (under a lock), in the order
// points finish: the caller stores it (one transaction per point) and shows progress. Once
// `cancel` is set no point starts, and the searches under way stop (their points are dropped).
// `threads` 0: as many as the machine has. Returns how many points finished.
size_t evaluate_sweep_points(const SweepSpace& sweep, const std::vector<size_t>& pending,
                             int threads, const std::atomic<bool>* cancel,
                             const std::function<void(const SweepPointRecord&)>& finished);

}  // namespace ts
