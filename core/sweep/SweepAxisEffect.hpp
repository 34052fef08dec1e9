#pragma once
// Whether a sweep's axis can move its result, told twice (docs/sweep.md, "Axes that do nothing"):
//
// - before any point runs, from the graph: a swept value the cost model takes the min() of with
//   another figure of the graph cannot act above that figure (sweep_axis_caps). An edge moves no
//   more than the port of the memory at either end allows (ArchitectureGraph::effective_bandwidth
//   and the analysis' port floors); a memory's read or write port no more than its combined
//   port; a memory's port no more than all its edges together can carry, where each of them is
//   one shared pool. `sweep` warns once per such axis, naming the figure that caps it.
// - after the points, from their results (sweep_axis_plateaus): an axis along which the suite
//   total never moves at any combination of the other axes' values ("has no effect"), or whose
//   values above (below) some value all give what that value gives, whatever caps it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "measure/SweepPointRecord.hpp"
#include "sweep/SweepAxis.hpp"

namespace ts {

struct SweepAxisCap {
  size_t axis = 0;  // index into the axes given
  std::string path;
  double cap = 0;                // in the parameter's unit (SI base)
  std::string capped_by;         // "node HBM's port bandwidth (node:HBM.bandwidth)"
  std::vector<double> capped;    // the axis' values above the cap, in the order given
  bool zero_means_none = false;  // a value of 0 (no port limit) is among `capped`
};

// The axes some of whose values lie above a figure of `base` that the cost model caps them by,
// one entry per such axis. Where another axis varies that figure, the cap is its loosest value
// (the largest; none where a port is swept to 0, no limit), so that a value reported capped is
// capped at every point.
std::vector<SweepAxisCap> sweep_axis_caps(const ArchitectureGraph& base,
                                          const std::vector<SweepAxis>& axes);

// The caps of a stored sweep (the GUI's, which has the points but not the command line) where
// `graph` is its base graph: every point's parameters are paths of `graph`, and the first point's
// values written into it give the graph the point was predicted on (its arch_hash). The axes are
// the paths that take two values or more, with the values the points hold. nullopt when `graph`
// is not the sweep's (another file, an edited copy) or the points are a strategy grid's.
std::optional<std::vector<SweepAxisCap>> stored_sweep_caps(
    const ArchitectureGraph& graph, const std::vector<SweepPointRecord>& points);

// "values above 4.8 TB/s are capped by node HBM's port bandwidth (node:HBM.bandwidth, 4.8 TB/s);
// 9.6 TB/s gives what 4.8 TB/s does"
std::string sweep_cap_text(const SweepAxisCap& cap);

struct SweepAxisPlateau {
  enum class Kind {
    no_effect,   // every value gives the same result
    same_above,  // the values above `from` give what `from` gives
    same_below,  // the values below `from` give what `from` gives
  };
  std::string path;
  Kind kind = Kind::no_effect;
  double from = 0;           // same_above, same_below: the value the others give what it gives
  std::vector<double> same;  // the values that give what `from` gives (no_effect: all), rising
  // A path whose values are names (a schedule): no_effect only, the names in `names`.
  std::vector<std::string> names;
  // no_effect on the total: the other figures the path does move ("suite energy", "graph
  // area"), where every point with a time has them. The sweep is then not for nothing.
  std::vector<std::string> moves;
};

// Within each group of points that agree on every other path's value, whether the figure moves
// with `path`'s value, from the points alone. Claims need evidence: some group holding two
// values or more of the path (so drawn points, lhs and random, where no two points share the
// other values, give none). Figures are equal within a relative 1e-9 (both infinite: equal).
// The figure is each point's total (total_s: the suite's time, a grid's iteration time; then a
// path without effect on it says which of energy and area it moves) or `figures`, one per point.
// A path whose values are no numbers (a schedule) can have no effect, but no plateau above or
// below a value.
std::vector<SweepAxisPlateau> sweep_axis_plateaus(const std::vector<std::string>& paths,
                                                  const std::vector<SweepPointRecord>& points);
std::vector<SweepAxisPlateau> sweep_axis_plateaus(const std::vector<std::string>& paths,
                                                  const std::vector<SweepPointRecord>& points,
                                                  const std::vector<double>& figures);

// "no value changes the suite total: 10, 16 and 20 give the same", "24 and 40 give the same
// suite total as 20", each followed by " at every combination of the other parameters" where
// there are others. `subject`: "the suite total", "the iteration time".
std::string sweep_plateau_text(const SweepAxisPlateau& plateau, const std::string& subject,
                               bool other_parameters);

// Whether a plateau says nothing the cap did not: every value the plateau finds giving the same
// lies at or above the cap's last value below it (so a rise to the cap still acts).
bool plateau_explained_by(const SweepAxisPlateau& plateau, const SweepAxisCap& cap,
                          const std::vector<double>& axis_values);

// Whether `path` leaves the figure unmoved: some group holds two of its values or more, and in
// every group the figure is the same at all of them (the plateau analysis' no_effect, for one
// path). `texts[i]` holds point i's values as text, one per path (how groups are told apart);
// points with a non-finite figure are skipped.
bool sweep_path_without_effect(size_t path, const std::vector<std::vector<std::string>>& texts,
                               const std::vector<double>& figures);

// Each point's values of `paths` as their JSON text (a number, a schedule's name).
std::vector<std::vector<std::string>> sweep_parameter_texts(
    const std::vector<SweepPointRecord>& points, const std::vector<std::string>& paths);

}  // namespace ts
