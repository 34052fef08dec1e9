#pragma once
// One derivative-free descent over the unit cube, shared by the single-graph and the shared fits:
// BOBYQA (bound-constrained, few evaluations per dimension, deterministic), its stops on a
// round-off limit or a forced stop taken as an end, not an error. The callers keep the best point
// they evaluated themselves: the optimiser's own answer can be worse than one it has seen.
#include <functional>
#include <vector>

namespace ts {

struct UnitCubeDescent {
  int max_evaluations = 0;
  double xtol_abs = 1e-7;  // of the unit range
  double ftol_abs = 1e-14;
  double initial_step = 0.1;
};

// Descends from `start` (each coordinate in [0, 1]); `objective` is called once per evaluation.
void descend_on_unit_cube(const std::function<double(const std::vector<double>&)>& objective,
                          std::vector<double> start, const UnitCubeDescent& settings);

}  // namespace ts
