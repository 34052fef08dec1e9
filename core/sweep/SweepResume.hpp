#pragma once
// What makes a sweep resumable: every point is stored as it finishes, under the sweep's key and
// its parameters, so a rerun (after a crash, a Ctrl-C, or with more values) computes only what
// the store does not hold. docs/sweep.md.
#include <vector>

#include "measure/ResultStore.hpp"
#include "sweep/SweepSpace.hpp"

namespace ts {

// The indices of the points of `sweep` that `store` does not hold yet.
std::vector<size_t> pending_points(const SweepSpace& sweep, const ResultStore& store);

// The points of `sweep`'s space that `store` holds: it may hold other values of the same
// parameters, from a wider sweep, which are not this sweep's.
std::vector<SweepPointRecord> stored_points_of(const SweepSpace& sweep, const ResultStore& store);

}  // namespace ts
