#pragma once
// What `sweep --summary` prints for the points of a sweep, architecture or strategy grid alike,
// as text or as JSON (`--format json`): the sensitivity table (total and each subject against
// each varied parameter, core's sweep_sensitivities, with the parameters it could not fit apart
// named), the ranking of the parameters by the total's sensitivity, which Pareto cost is used and
// why, and the Pareto front(s) of time against it (sweep/SweepCost); where every point that has a
// time has them, the sensitivities and rankings of the suite energy and of the graph area.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "measure/SweepPointRecord.hpp"
#include "sweep/SweepCost.hpp"

namespace ts::cli {

struct SweepSummaryText {
  std::vector<std::string> paths;  // the varied parameters
  bool strategy_grid = false;
  std::optional<SweepCost> cost;  // --cost; nullopt: chosen from the points (choose_sweep_cost)
  std::string cost_header;        // the cost proxy's column header
  std::function<std::string(double cost)> cost_text;  // the cost proxy in the column's unit
  // A point's values as "PATH=VALUE ..." in the parameters' units.
  std::function<std::string(const SweepPointRecord&)> parameters_text;
};

// `points`: the sweep's points found in the store. `front_points`: those that may be on the
// front (a strategy grid leaves out the points that run out of memory).
void print_sweep_summary(std::ostream& out, const SweepSummaryText& text,
                         const std::vector<SweepPointRecord>& points,
                         const std::vector<SweepPointRecord>& front_points);
// The same facts as one JSON object: figures in SI base units (s, J, m^2, bytes), elasticities
// as numbers or null.
nlohmann::json sweep_summary_json(const SweepSummaryText& text,
                                  const std::vector<SweepPointRecord>& points,
                                  const std::vector<SweepPointRecord>& front_points);

}  // namespace ts::cli
