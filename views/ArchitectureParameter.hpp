#pragma once
// The parameters a person edits in the architecture inspector and how it shows them, named by
// the paths of core's grammar (arch/ArchitectureParameterPath: edge:A->B.bandwidth,
// node:N.capacity, node:N.instances, node:N.efficiency, clock, ...). Values are in SI base
// units.
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"

namespace ts::views {

struct EditableParameter {
  std::string path;   // as above
  std::string label;  // "bandwidth", "capacity", ...
  // How the inspector shows the value: shown = si_value / scale, in `unit`.
  double scale = 1;
  std::string unit;
  int decimals = 3;
  bool integer = false;
};

std::vector<EditableParameter> graph_parameters();
std::vector<EditableParameter> node_parameters(const ArchitectureGraph& graph, NodeId node);
std::vector<EditableParameter> edge_parameters(const ArchitectureGraph& graph, EdgeId edge);

// `baseline` is the graph as loaded: node:N.efficiency is relative to its throughputs, so that
// setting a value and setting it back (undo) restore the graph exactly.
// Both throw InputError for a path that names nothing in the graph.
double read_parameter(const ArchitectureGraph& graph, const ArchitectureGraph& baseline,
                      const std::string& path);
void write_parameter(ArchitectureGraph& graph, const ArchitectureGraph& baseline,
                     const std::string& path, double value);

}  // namespace ts::views
