#pragma once
// `simulate --sweep`: every valid strategy of a grid around a base strategy (StrategyGridAxes:
// the grid `sweep --strategy-grid` reads, less its clusters) on one cluster, simulated and ranked.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "training/StrategyGridAxes.hpp"
#include "training/TrainingSimulation.hpp"

namespace ts {

struct SweepPoint {
  ParallelStrategy strategy;
  TrainingSimulation result;
};

// Told after each simulated point: how many are done, how many the grid holds (the valid ones),
// and the strategy just simulated. Returning false stops the sweep: it ranks what is done.
using StrategySweepProgress =
    std::function<bool(size_t done, size_t total, const ParallelStrategy& strategy)>;

// The points of expand_strategy_grid that the cluster can run, ranked by iteration time,
// out-of-memory points after all others.
std::vector<SweepPoint> sweep_strategies(const TransformerModel& model,
                                         const ParallelStrategy& base, const Cluster& cluster,
                                         const StrategyGridAxes& axes,
                                         const OperatorTimeSource& times = {},
                                         const StrategySweepProgress& progress = {});

}  // namespace ts
