#pragma once
// Two traces of the same model compared operator by operator (a first-class operation, like a
// diff of two runs): each CPU operator's GPU time (the kernels, copies and collectives it
// launched, summed over the ranks and the window) before and after, and the change, so that a
// regression or a speed-up names the operators it came from.
#include <cstdint>
#include <string>
#include <vector>

#include "trace/RankTrace.hpp"

namespace ts {

struct OperatorTimeChange {
  std::string name;
  int64_t before_ns = 0;
  int64_t after_ns = 0;
  int64_t before_kernels = 0;
  int64_t after_kernels = 0;
  int64_t change_ns() const { return after_ns - before_ns; }
};

struct TraceDiff {
  int64_t before_wall_ns = 0;  // summed over ranks
  int64_t after_wall_ns = 0;
  int64_t before_gpu_ns = 0;  // GPU time, summed over activities and ranks
  int64_t after_gpu_ns = 0;
  std::vector<OperatorTimeChange> operators;  // by |change|, largest first
};

// `step`: ProfilerStep#N on both (each rank's step window), -1 for the whole traces.
TraceDiff diff_traces(const Trace& before, const Trace& after, int64_t step = -1);

}  // namespace ts
