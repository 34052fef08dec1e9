#pragma once
// How the host fed the GPU in a window, from each GPU activity's launch call (HTA's CUDA kernel
// launch statistics): the delay from the launch call's start to the work's start, the work
// that ran for less time than its launch call took (the CPU cannot keep such a stream busy), and
// the length of each stream's queue (work launched and not yet finished) when a launch was made.
#include <cstdint>
#include <vector>

#include "trace/RankTrace.hpp"

namespace ts {

struct DelayBin {
  int64_t lower_ns = 0;  // inclusive
  int64_t upper_ns = 0;  // exclusive
  int64_t count = 0;
};

struct LaunchStatistics {
  int rank = 0;
  TimeWindow window;
  int64_t launched = 0;    // GPU activities starting in the window with a launch in the trace
  int64_t unlaunched = 0;  // those without one (left out of the rest)
  // Launch-to-start delay.
  int64_t delay_min_ns = 0, delay_p50_ns = 0, delay_p90_ns = 0, delay_p99_ns = 0, delay_max_ns = 0;
  double delay_mean_ns = 0;
  std::vector<DelayBin> histogram;     // [0, 1 us), then doubling bins up to the largest delay
  int64_t shorter_than_launch = 0;     // kernels whose run took less than their launch call
  int64_t shorter_than_launch_ns = 0;  // their GPU time
  int64_t max_queue = 0;
  double mean_queue = 0;
};

LaunchStatistics launch_statistics(const RankTrace& rank, const TimeWindow& window);

}  // namespace ts
