#include "analysis/IssueRate.hpp"

#include <algorithm>

namespace ts {
namespace {

double whole_granules(int64_t extent, int64_t granule) {
  // Rounded up without extent + g - 1, which overflows for a granule near 2^63.
  const int64_t g = std::max<int64_t>(1, granule), x = std::max<int64_t>(1, extent);
  return static_cast<double>(x + (g - 1 - (x - 1) % g));
}

}  // namespace

double issue_instructions_per_step(const IssueLimit& issue, const std::array<int64_t, 3>& granule,
                                   int64_t warp_m, int64_t warp_n) {
  const double gm = static_cast<double>(granule[0]), gn = static_cast<double>(granule[1]);
  const double fragments =
      gn / whole_granules(warp_n, granule[1]) + gm / whole_granules(warp_m, granule[0]);
  return issue.instructions_per_step + issue.instructions_per_fragment * fragments;
}

double issue_limited_ops_per_cycle(const ComputeCapability& cap, int64_t warps, int64_t warp_m,
                                   int64_t warp_n) {
  if (!cap.issue) return cap.ops_per_cycle;
  const IssueLimit& issue = *cap.issue;
  const double ops_per_step = static_cast<double>(cap.granule[0] * cap.granule[1] * cap.granule[2]);
  const double peak_steps = cap.ops_per_cycle / ops_per_step;
  const double issue_steps =
      issue.issue_per_cycle / issue_instructions_per_step(issue, cap.granule, warp_m, warp_n);
  const double latency_steps =
      static_cast<double>(std::max<int64_t>(1, warps)) / issue.latency_cycles;
  return std::min({peak_steps, issue_steps, latency_steps}) * ops_per_step;
}

}  // namespace ts
