#pragma once
// The rate an issue-limited matmul unit (ComputeCapability::issue, a GPU SM fed by warps)
// reaches on the tile it runs (docs/analysis.md, "Issue-limited compute"). Per granule step
// (one mma of the unit's granule gm x gn x gk) a warp issues
//   i = instructions_per_step + instructions_per_fragment * (gn / wn + gm / wm)
// instructions: a warp tile of wm x wn reuses each A fragment wn / gn times and each B fragment
// wm / gm times. The unit's schedulers issue at most issue_per_cycle instructions a cycle, and a
// warp's next step waits latency_cycles for its last, so W warps reach
//   steps per cycle = min(ops_per_cycle / (gm gn gk), issue_per_cycle / i, W / latency_cycles).
#include <cstdint>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

// Instructions one warp issues per granule step with a warp tile of warp_m x warp_n (padded up
// to whole granules).
double issue_instructions_per_step(const IssueLimit& issue, const std::array<int64_t, 3>& granule,
                                   int64_t warp_m, int64_t warp_n);

// Multiply-accumulates per cycle per instance that `warps` warps of warp_m x warp_n reach: the
// capability's ops_per_cycle when it has no issue limit.
double issue_limited_ops_per_cycle(const ComputeCapability& cap, int64_t warps, int64_t warp_m,
                                   int64_t warp_n);

}  // namespace ts
