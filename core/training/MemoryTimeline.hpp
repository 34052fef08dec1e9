#pragma once
// Device memory over an executed task graph: what the tasks of a stream's device hold at each
// moment (Task::memory_bytes), as a step function, and its peak.
#include <vector>

#include "training/TaskGraph.hpp"

namespace ts {

struct MemorySample {
  double time_s = 0;
  double bytes = 0;  // held from this time until the next sample
};

// The memory held on the device of `stream`, starting from `base_bytes` (what it holds all the
// time: weights, gradients, optimizer state). A task's take counts from its start, its release
// from its end; at equal times releases come first, as a device frees before it allocates.
std::vector<MemorySample> memory_over_time(const TaskGraph& graph, const TaskTimes& times,
                                           int stream, double base_bytes);

double peak_bytes(const std::vector<MemorySample>& samples);

}  // namespace ts
