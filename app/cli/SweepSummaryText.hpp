#pragma once
// What `sweep --summary` prints for the points of a sweep, architecture or strategy grid alike:
// the sensitivity table (total and each subject against each varied parameter), the ranking of
// the parameters by the total's sensitivity, and the Pareto front of time against cost; where
// every point that has a time has them, the sensitivities and rankings of the suite energy and of
// the graph area, and the fronts of time against energy and against area (the area's in place of
// the cost's), with each front point's energy, area and EDP (energy x time).
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "measure/SweepPointRecord.hpp"

namespace ts::cli {

struct SweepSummaryText {
  std::vector<std::string> paths;  // the varied parameters
  std::string cost_title;          // "memory bytes: capacity x instances summed over memories"
  std::string cost_header;         // the column's header
  std::function<std::string(double cost)> cost_text;
  // A point's values as "PATH=VALUE ..." in the parameters' units.
  std::function<std::string(const SweepPointRecord&)> parameters_text;
};

// `points`: the sweep's points found in the store. `front_points`: those that may be on the
// front (a strategy grid leaves out the points that run out of memory).
void print_sweep_summary(std::ostream& out, const SweepSummaryText& text,
                         const std::vector<SweepPointRecord>& points,
                         const std::vector<SweepPointRecord>& front_points);

}  // namespace ts::cli
