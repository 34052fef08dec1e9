#pragma once
// One workload predicted on two or more architecture graphs, side by side: per operator and in
// total, the time on each graph, the speed-up of each over the first, what bounds it and where
// the bound moved. A plain value built from the per-graph rows `predict` computes
// (predict_workload), like heaptrack's diff: the CLI's `compare`, `report --compare` and the
// GUI's Compare page all show this one value.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/Prediction.hpp"
#include "mapper/SearchConvergence.hpp"

namespace ts {

// One graph's side: its predictions, one per operator in the workload's order.
struct ComparedGraph {
  std::string label;   // "A", "B", ...: short column names, distinct when graph names are not
  std::string name;    // the graph's own name ("NVIDIA H100 SXM5")
  std::string source;  // as the user named it: a file, or profile:NAME[/VARIANT]
  std::vector<Prediction> predictions;
  // The operators whose mapper search ran out of budget on this graph (compare_architectures
  // fills it from the predictions).
  UnconvergedSearches unconverged;
  // The graph's area, m^2, where its nodes give one (EnergyReport::area_m2); filled by
  // compare_architectures.
  std::optional<double> area_m2;
};

// An operator (or the total) on one graph.
struct TimeOnGraph {
  double device_us = 0;  // the prediction's device time
  double launch_us = 0;  // the device's launch overhead
  // The first graph's time over this one's: above 1 this graph is faster. NaN when both are 0.
  double speedup = 1;
  // What bounds it (Prediction::bound_by); for the total, the bound of the operators that take
  // the most time together (dominant_bound).
  std::string bound_by;
  // "compute:TensorCore → edge:HBM->L2" when bound_by differs from the first graph's, else "".
  std::string bound_moved;
  // Where the operator's mapping came from (Prediction::mapping_origin): "mapper", "file", or
  // "mapper, as found on 'NAME'" where another graph's mapping is faster here; "" for the total.
  std::string mapping;
  // Joules (EnergyReport::total_j) where the graph prices everything the operator does (for the
  // total: every operator's); empty when unknown, never a partial sum.
  std::optional<double> energy_j;

  // What predict's total adds up per operator: device time and launch overhead.
  double time_us() const { return device_us + launch_us; }
};

struct ComparedOperator {
  std::string name, type, shape;
  std::vector<TimeOnGraph> on_graph;  // one per ComparedGraph, in their order
};

struct ArchitectureComparison {
  std::string workload;
  std::vector<ComparedGraph> graphs;
  std::vector<ComparedOperator> operators;
  std::vector<TimeOnGraph> total;  // one per graph: the sums, their ratio, the dominant bound
  // Per graph, how many operators have a bound other than on the first graph.
  std::vector<size_t> moved_bounds;
};

// A node's energy over the whole workload: the sum of the operators' (EnergyReport::nodes).
struct NodeEnergyTotal {
  std::string name;
  double energy_j = 0;
};

// A graph's energy per node, in the graph's order of first appearance; empty when the graph
// does not price every operator (the total would be a partial sum).
std::vector<NodeEnergyTotal> workload_energy_by_node(const ComparedGraph& graph);

// "from → to", or "" when they are the same bound.
std::string bound_move_text(const std::string& from, const std::string& to);

// The bound whose operators take the most time (device and launch) together in `predictions`;
// ties go to the bound met first. "" when there are no predictions.
std::string dominant_bound(const std::vector<Prediction>& predictions);

// Builds the comparison; each graph's label is set to "A", "B", ... in order. Throws
// std::invalid_argument when fewer than two graphs are given or when their predictions are not
// of the same operators in the same order (a caller's mistake: predict_workload gives the
// workload's order on every graph).
ArchitectureComparison compare_architectures(const std::string& workload,
                                             std::vector<ComparedGraph> graphs);

// One line per graph whose searches did not all converge: "on graph A (NAME): " and
// unconverged_text; what `compare` warns on stderr and `report --compare` adds to its notes.
std::vector<std::string> unconverged_graph_notes(const ArchitectureComparison& c, uint64_t budget);

}  // namespace ts
