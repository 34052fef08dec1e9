#pragma once
// One sweep's points read back from a results database with what the views draw of them: the
// parameters it varied, the sensitivities, the Pareto front. Works from the stored points alone
// (no command line): what a report (`tilescope report --sweep DB`) and the GUI show.
#include <optional>
#include <string>
#include <vector>

#include "measure/SweepPointRecord.hpp"
#include "sweep/SweepAxisEffect.hpp"
#include "sweep/SweepCost.hpp"
#include "sweep/SweepSummary.hpp"

namespace ts {

struct SweepDigest {
  // A strategy grid (sweep --strategy-grid): cost is the peak memory per GPU and points that run
  // out of memory are on no front; else an architecture sweep, cost the memory bytes.
  bool strategy_grid = false;
  // The parameters that take two values or more over the points (varied_sweep_paths).
  std::vector<std::string> paths;
  std::vector<SweepPointRecord> points;
  std::vector<SweepSensitivity> sensitivities;  // total first (sweep_sensitivities)
  std::vector<SweepPointRecord> front;          // pareto_front of the points that may be on it
  size_t out_of_memory = 0;                     // strategy grid points
  // Fronts of time against the suite's energy and against the graph's area, where every point
  // with a finite time has the figure (sweep_figure_known); empty otherwise. The sensitivity of
  // the figure to each path where it is known.
  bool energy_known = false, area_known = false;
  std::vector<SweepPointRecord> energy_front, area_front;
  std::optional<SweepSensitivity> energy_sensitivity, area_sensitivity;
  // The Pareto cost chosen from the points (choose_sweep_cost: energy, else area, else the cost
  // proxy) and its front: what the page's and the report's first figure draw.
  SweepCost cost;
  std::vector<SweepPointRecord> cost_front;
  // The paths along which the total never moves, or stops moving (sweep_axis_plateaus).
  std::vector<SweepAxisPlateau> plateaus;
};

// The parameters that take two values or more over `points`, sorted, a strategy grid's
// cluster-content (a hash, which moves with cluster) left out and its dp last (on one cluster dp
// = GPUs / (tp x pp): fitted last, it is the one left out as collinear, not tp or pp). What the
// CLI's summary of a strategy grid, the GUI and the report fit alike.
std::vector<std::string> varied_sweep_paths(const std::vector<SweepPointRecord>& points);

// `points`: one sweep's (one sweep_key and workload_hash), as ResultStore::sweep_points gives.
SweepDigest digest_sweep(std::vector<SweepPointRecord> points);

}  // namespace ts
