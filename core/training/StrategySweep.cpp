#include "training/StrategySweep.hpp"

#include <algorithm>

namespace ts {

std::vector<SweepPoint> sweep_strategies(const TransformerModel& model,
                                         const ParallelStrategy& base, const Cluster& cluster,
                                         const StrategyGridAxes& axes,
                                         const OperatorTimeSource& times,
                                         const StrategySweepProgress& progress) {
  // The valid points first (cheap checks), so that progress can say how many there are.
  const std::vector<ParallelStrategy> grid = expand_strategy_grid(model, base, axes).strategies;
  std::vector<SweepPoint> points;
  size_t done = 0;
  for (const ParallelStrategy& s : grid) {
    try {
      points.push_back({s, simulate_training(model, s, cluster, times)});
    } catch (const InputError&) {
      // not a valid point of the grid
    }
    if (progress && !progress(++done, grid.size(), s)) break;
  }
  std::stable_sort(points.begin(), points.end(), [](const SweepPoint& a, const SweepPoint& b) {
    if (a.result.out_of_memory != b.result.out_of_memory) return !a.result.out_of_memory;
    return a.result.iteration_s < b.result.iteration_s;
  });
  return points;
}

}  // namespace ts
