#pragma once
// A mapping's energy and the graph's area, from the access counts (AccessCounts) and the energy
// and area figures the graph gives (docs/energy.md): per memory, each read, fill and update of a
// block of words at its energy; per unit, each operation at its `energy_per_op`; per edge, each
// byte at its `energy_per_byte`; leakage per cycle of each instance over the predicted time.
// What the graph gives no figure for is listed, never priced at a made-up default; a graph with
// no energy figure at all has no energy (`known` false), and predicts as before.
#include <optional>
#include <string>
#include <vector>

#include "analysis/AnalysisResult.hpp"
#include "analysis/MappingProgram.hpp"

namespace ts {

struct NodeEnergy {
  NodeId node;
  std::string name;
  double reads_j = 0, fills_j = 0, updates_j = 0;  // memory: its accesses
  double compute_j = 0;                            // unit: its operations
  double leak_j = 0;
  double total_j() const { return reads_j + fills_j + updates_j + compute_j + leak_j; }
};

struct EnergyReport {
  // Every memory the mapping accesses gives its `energy` and every unit that computes its
  // `energy_per_op`: total_j is the operator's energy. A graph that gives some figures and not
  // these (a GPU profile's energy_per_op, there for its power cap) has a partial sum and an
  // `unpriced` list, never a total. Edges without `energy_per_byte` and nodes without `leak`
  // add nothing: a table's read and write energies hold what moving a word costs.
  bool known = false;
  bool partial = false;           // some figures, not all the mapping needs
  std::vector<NodeEnergy> nodes;  // graph order, the nodes the mapping uses or that leak
  double edges_j = 0;             // energy_per_byte x the bytes over each edge
  double total_j = 0;
  // Sum over the nodes that give an area of area x instances; none where no node gives one.
  std::optional<double> area_m2;
  // What moves data or computes here and has no figure: "memory 'L2' has no `energy`", ...
  std::vector<std::string> unpriced;
};

EnergyReport energy_of(const MappingProgram& program, const AnalysisResult& result);

}  // namespace ts
