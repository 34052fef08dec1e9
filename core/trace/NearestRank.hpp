#pragma once
// The nearest-rank percentile of sorted values: the smallest value with at least `p` of the
// values at or below it (0 for none). The launch statistics and the host's call costs both
// report percentiles of integer nanoseconds this way.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ts {

inline int64_t nearest_rank(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace ts
