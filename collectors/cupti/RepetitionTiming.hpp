#pragma once
// Ties kernels to the repetitions that launched them. The runner notes a host interval (CUPTI
// timestamps) around each timed repetition; the API calls made inside it name correlation ids,
// and the kernels with those ids are that repetition's work. Kernels of the L2 flush and of the
// reference check run outside every interval and are never counted.
#include <cstdint>
#include <vector>

#include "ActivityRecords.hpp"

namespace ts::cupti {

struct RepetitionWindow {
  uint64_t host_start_ns = 0;
  uint64_t host_end_ns = 0;
};

struct RepetitionTiming {
  std::vector<double> device_ns;          // per repetition: the sum of its kernels' durations
  std::vector<int> kernels;               // kernels per repetition
  std::vector<std::string> kernel_names;  // distinct names, first seen first
};

// A repetition whose API calls launched no kernel gets 0 ns and 0 kernels (the caller reports
// that as an error: nothing was measured).
RepetitionTiming time_repetitions(const std::vector<RepetitionWindow>& windows,
                                  const DecodedActivity& activity);

}  // namespace ts::cupti
