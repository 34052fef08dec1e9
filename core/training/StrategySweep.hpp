#pragma once
// Every valid strategy over a grid of tensor-parallel degrees, pipeline degrees and micro-batch
// sizes, on the same GPUs and global batch as a base strategy, simulated and ranked.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "training/TrainingSimulation.hpp"

namespace ts {

struct SweepAxes {
  std::vector<int64_t> tp, pp, micro_batch;  // empty: the base strategy's value
};

// "tp=1,2,4,8", "pp=1,2", "mbs=1,2,4", one axis per text. Throws InputError (at `--sweep`) for an
// unknown axis or a value that is not a positive integer.
SweepAxes parse_sweep_axes(const std::vector<std::string>& texts);

struct SweepPoint {
  ParallelStrategy strategy;
  TrainingSimulation result;
};

// Told after each simulated point: how many are done, how many the grid holds (the valid ones),
// and the strategy just simulated. Returning false stops the sweep: it ranks what is done.
using StrategySweepProgress =
    std::function<bool(size_t done, size_t total, const ParallelStrategy& strategy)>;

// The data-parallel degree of each point makes up the base strategy's GPU count; points whose
// degrees or batch do not fit the model are left out. Ranked by iteration time, out-of-memory
// points after all others.
std::vector<SweepPoint> sweep_strategies(const TransformerModel& model,
                                         const ParallelStrategy& base, const Cluster& cluster,
                                         const SweepAxes& axes,
                                         const OperatorTimeSource& times = {},
                                         const StrategySweepProgress& progress = {});

}  // namespace ts
