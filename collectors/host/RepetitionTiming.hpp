#pragma once
// Timing a microbenchmark by short slices and a low quantile: shared by the calibration's
// microbenchmarks (Microbench.cpp, OperationCost.cpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ts::host::bench {

// Seconds per repetition of `run(n)` (which runs n repetitions and returns its wall time).
// n is doubled until one run lasts a slice (2 ms, less when `seconds` is tiny), which also warms
// caches, TLB and clock; then slices are timed for about `seconds` and the fastest fifth counts
// (the 20th percentile). On a machine shared with other work (a VM whose vCPU the host
// deschedules, compilers on the same cores, neighbours on the memory bus) a disturbed slice is
// slower, never faster, so the fast end of many short slices is the machine's own rate and not
// the neighbours' load; a quantile rather than the minimum keeps one lucky slice from setting the
// figure. What noise remains shows as the spread between independent runs. A repetition longer
// than a slice is one slice, timed at least once.
constexpr double kSliceSeconds = 0.002;
constexpr int kMaxSlices = 50;
template <class Run>
double seconds_per_repetition(Run&& run, double seconds) {
  const double slice = std::min(kSliceSeconds, seconds / 5);
  int64_t n = 1;
  double t = run(n);
  while (t < slice && n < (int64_t{1} << 40)) {
    n *= 2;
    t = run(n);
  }
  const double per_rep = std::max(t, 1e-9) / static_cast<double>(n);
  const auto reps = std::max<int64_t>(1, std::llround(slice / per_rep));
  const double slice_seconds = static_cast<double>(reps) * per_rep;
  const int slices =
      static_cast<int>(std::clamp<double>(std::round(seconds / slice_seconds), 1, kMaxSlices));
  std::vector<double> times;
  for (int i = 0; i < slices; ++i) times.push_back(run(reps) / static_cast<double>(reps));
  const size_t q = times.size() / 5;
  std::nth_element(times.begin(), times.begin() + static_cast<long>(q), times.end());
  return times[q];
}

}  // namespace ts::host::bench
