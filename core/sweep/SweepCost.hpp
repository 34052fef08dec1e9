#pragma once
// What a sweep's Pareto front sets time against (docs/sweep.md, "Pareto cost"): the suite's
// energy where the graph prices every point, else the graph's area where it gives one, else the
// cost proxy of the store (memory bytes; a strategy grid's peak memory per GPU), unless the user
// names one (`sweep --cost`): memory, energy, area, edp (energy x time) or a varied parameter,
// whose value is then the cost (more L1 costs more). The memory proxy is dominated by the
// largest memory (an HBM's 64 GiB beside a few MiB of buffers), which is why it comes last.
#include <optional>
#include <string>
#include <vector>

#include "measure/SweepPointRecord.hpp"
#include "sweep/SweepSummary.hpp"

namespace ts {

struct SweepCost {
  SweepFigure figure = SweepFigure::cost;
  std::string path;  // SweepFigure::parameter: the varied parameter whose value is the cost
  bool operator==(const SweepCost&) const = default;
};

// `--cost TEXT`: "auto" (nullopt: choose_sweep_cost decides from the points), "memory",
// "energy", "area", "edp", or one of `paths` (a varied parameter with numbers for values).
// Throws InputError at `input` naming the text and what is expected; a strategy grid's points
// have no energy or area, so only memory and its numeric keys are costs there.
std::optional<SweepCost> parse_sweep_cost(const std::string& text,
                                          const std::vector<std::string>& paths, bool strategy_grid,
                                          const std::string& input = "--cost");

// The automatic choice: the suite energy where every point with a finite time has it, else the
// graph's area likewise, else the cost proxy.
SweepCost choose_sweep_cost(const std::vector<SweepPointRecord>& points);

// The point's cost; nullopt where it is not known (energy, area and EDP), or where the
// parameter's value is no number.
std::optional<double> sweep_cost_value(const SweepPointRecord& point, const SweepCost& cost);
// Some point has a finite time and every such point has the cost.
bool sweep_cost_known(const std::vector<SweepPointRecord>& points, const SweepCost& cost);
// The points no other point beats in both total time and the cost (lower is better in both),
// ordered by rising cost and so falling time; a tie in the cost keeps the faster, a tie in time
// the lower cost, a tie in both the lower energy (on the energy front: the lower area; unknown
// last), then the first by parameters_json. Points without the cost are on no front.
std::vector<SweepPointRecord> pareto_front(std::vector<SweepPointRecord> points,
                                           const SweepCost& cost);

// For titles: "suite energy (sum over operators of energy, once each)", "graph area (area x
// instances summed over nodes)", "EDP (suite energy x suite time)", "cost (memory bytes: capacity
// x instances summed over memories)", "cost (peak memory per GPU; points out of memory left
// out)", "node:L1.capacity".
std::string sweep_cost_title(const SweepCost& cost, bool strategy_grid);
// One line saying which cost the fronts use and why: "Pareto cost: suite energy (known at every
// point; --cost names another: memory, area, edp or a varied parameter)".
std::string sweep_cost_line(const SweepCost& cost, bool chosen, bool strategy_grid);

}  // namespace ts
