#pragma once
// A parameter of an architecture graph named by a path, for `fit` and `correlate --fit`:
//   launch_overhead                 seconds
//   clock                           Hz (the graph clock)
//   edge:FROM->TO.bandwidth         bytes/s
//   edge:FROM->TO.latency           cycles
//   node:NAME.bandwidth             bytes/s (a memory's combined port)
//   node:NAME.read_bandwidth / node:NAME.write_bandwidth
//   node:NAME.efficiency            a factor (0, 1] on every capability of a compute node
// `PATH=lo:hi` bounds it (values in the parameter's unit, SI suffixes allowed: `10GB/s:200GB/s`);
// without bounds the fit searches from a quarter to four times the current value.
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

struct GraphParameter {
  std::string path;  // as written, without the bounds
  double lower = 0, upper = 0;
  double initial = 0;  // the value in the graph it was resolved against
};

// Throws InputError (file "--param", naming the text) when the path names nothing in the graph
// or the bounds are malformed.
GraphParameter parse_graph_parameter(const std::string& text, const ArchitectureGraph& graph);
double get_parameter(const ArchitectureGraph& graph, const std::string& path);
void set_parameter(ArchitectureGraph& graph, const std::string& path, double value);

}  // namespace ts
