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
//
// `clock` moves the graph clock and the clock of every node that runs at it (a node whose own
// clock differs keeps it); rates already resolved to bytes/s stay as they are, throughput per
// cycle and latencies in cycles follow the clock.
//
// `efficiency` is not a field of the graph: it scales the ops_per_cycle of the node's
// capabilities relative to a baseline, the values in the graph the parameter was resolved
// against, which GraphParameter keeps. get/set with a GraphParameter are therefore consistent
// (set 0.8, get 0.8, set 1 restores the baseline). The path-only forms have no baseline but the
// graph they are given: get returns 1 and set scales the current values.
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

struct GraphParameter {
  std::string path;  // as written, without the bounds
  double lower = 0, upper = 0;
  double initial = 0;  // the value in the graph it was resolved against
  // node:NAME.efficiency only: ops_per_cycle of each of the node's capabilities at resolution.
  std::vector<double> baseline_ops_per_cycle;
};

// Throws InputError (file "--param", naming the text) when the path names nothing in the graph
// or the bounds are malformed.
GraphParameter parse_graph_parameter(const std::string& text, const ArchitectureGraph& graph);
double get_parameter(const ArchitectureGraph& graph, const std::string& path);
void set_parameter(ArchitectureGraph& graph, const std::string& path, double value);

// As above, with errors located at `option` ("--param" for `fit`, "--fit" for `correlate`).
GraphParameter parse_graph_parameter(const std::string& text, const ArchitectureGraph& graph,
                                     const std::string& option);
// Efficiency relative to the parameter's baseline; every other path as the path-only forms.
double get_parameter(const ArchitectureGraph& graph, const GraphParameter& param);
void set_parameter(ArchitectureGraph& graph, const GraphParameter& param, double value);

// The unit a parameter's value is in ("s", "Hz", "B/s", "cycles", or "" for a factor), and the
// value written for people in it: "12 us", "1.6 TB/s", "1.8 GHz", "0.84".
std::string parameter_unit(const std::string& path);
std::string format_parameter(const std::string& path, double value);

}  // namespace ts
