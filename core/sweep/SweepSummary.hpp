#pragma once
// What `sweep --summary` (and the views) say about a sweep's points: how sensitive the suite
// total and each operator are to each varied parameter, and which points are Pareto-optimal in
// latency against the cost proxy.
//
// Sensitivity is an elasticity: the relative change of time per relative change of the
// parameter, d ln T / d ln p (-1: time halves when the parameter doubles; 0: no effect). It is
// the coefficient of ln p in the least-squares fit ln T = c + sum_k s_k ln p_k over the points
// (docs/analysis.md): on a cross product this is the mean slope of each parameter's main effect
// in log space, and it works alike on drawn (lhs, random) points, where no two points differ in
// one parameter alone.
#include <optional>
#include <string>
#include <vector>

#include "measure/SweepPointRecord.hpp"

namespace ts {

struct SweepSensitivity {
  std::string subject;  // "total" (the suite: sum of device + launch time) or an operator's name
  // One per path, in the order given; nullopt where it cannot be told: the parameter took one
  // value only or a value <= 0 or no number (no logarithm), or the points do not determine the fit.
  std::vector<std::optional<double>> elasticity;
};

// A point's values of `paths`, read back from its parameters_json; NaN for a value that is not a
// number (a strategy grid's schedule or cluster file), whose sensitivity cannot be told.
std::vector<double> sweep_parameter_values(const SweepPointRecord& point,
                                           const std::vector<std::string>& paths);

// Rows: the total first, then each operator in the order of the first point. Points in which the
// subject has no valid mapping (an infinite time) are left out of its fit.
std::vector<SweepSensitivity> sweep_sensitivities(const std::vector<std::string>& paths,
                                                  const std::vector<SweepPointRecord>& points);

struct RankedSensitivity {
  std::string path;
  std::optional<double> elasticity;
};

// The paths ordered by how far the subject's time moves with each (|elasticity|, largest first;
// ties in the given order), those whose sensitivity cannot be told last: what to vary first.
std::vector<RankedSensitivity> rank_sensitivities(const std::vector<std::string>& paths,
                                                  const SweepSensitivity& row);

// The points no other point beats in both total time and cost (lower is better in both; a tie in
// both keeps the first by parameters_json), ordered by rising cost and so falling time.
std::vector<SweepPointRecord> pareto_front(std::vector<SweepPointRecord> points);

}  // namespace ts
