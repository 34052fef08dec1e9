#pragma once
// The grammar of graph parameter paths (docs/formats.md, "Graph parameter paths"): one name for
// each value of an architecture graph that `fit`, `correlate --fit`, the GUI inspector and sweeps
// read or change.
//   launch_overhead                 seconds
//   launch_overhead:TYPE            seconds, for operators of one type (`launch_overheads:`);
//                                   reads launch_overhead where the type has none of its own
//   clock                           Hz (the graph clock)
//   power                           W (the board's power limit; 0: none)
//   edge:FROM->TO.bandwidth         bytes/s
//   edge:FROM->TO.latency           cycles of the source clock
//   edge:FROM->TO.reduction_latency    cycles of the source clock per hop (`reduction: network`)
//   edge:FROM->TO.reduction_bandwidth  bytes/s of the reduced stream (`reduction: network`)
//   node:NAME.capacity              bytes per instance (a memory)
//   node:NAME.bandwidth             bytes/s (a memory's combined port; 0: none)
//   node:NAME.read_bandwidth / node:NAME.write_bandwidth
//   node:NAME.instances             a count (any node)
//   node:NAME.efficiency            a factor on every throughput of a compute node
//   node:NAME.min_kernel_time       seconds (a compute node's kernel floor)
//   node:NAME.energy_per_op         joules: the first of the node's operations that gives one; set,
//                                   every one that gives one, in the same proportion
//   node:NAME.issue_latency, node:NAME.instructions_per_step, node:NAME.instructions_per_fragment
//                                   the `issue:` figures of a compute node's operations
//
// `clock` moves the graph clock and the clock of every node that runs at it (a node whose own
// clock differs keeps it); rates already resolved to bytes/s stay as they are, throughput per
// cycle and latencies in cycles follow the clock.
//
// `efficiency` is not a field of the graph: it scales the ops_per_cycle of the node's
// capabilities relative to a baseline, the values in the graph the path was resolved against,
// which the ParameterPath keeps. Reading and writing through one ParameterPath are therefore
// consistent (set 0.8, read 0.8, set 1 restores the baseline); a path resolved against the graph
// it then reads reads 1.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

enum class ParameterField {
  launch_overhead,
  launch_overhead_of_type,
  clock,
  power,
  edge_bandwidth,
  edge_latency,
  edge_reduction_latency,
  edge_reduction_bandwidth,
  node_capacity,
  node_bandwidth,
  node_read_bandwidth,
  node_write_bandwidth,
  node_instances,
  node_efficiency,
  node_min_kernel_time,
  node_energy_per_op,
  // The issue limit of every operation of a compute node that has one (ComputeCapability::issue).
  node_issue_latency,
  node_issue_instructions_per_step,
  node_issue_instructions_per_fragment,
};

// A path resolved against a graph. Its node and edge ids hold for that graph and for every copy
// of it whose values were changed through paths (values change, the topology does not).
struct ParameterPath {
  std::string text;  // as written
  ParameterField field = ParameterField::launch_overhead;
  NodeId node;                // node fields
  EdgeId edge;                // edge fields
  std::string operator_type;  // launch_overhead:TYPE
  // node:NAME.efficiency only: ops_per_cycle of each of the node's capabilities at resolution.
  std::vector<double> baseline_ops_per_cycle;
};

// Throws InputError located at `input` (what held the text: "--param", "inspector") naming the
// text and what was expected: the forms of the grammar, or the graph's edges or nodes.
ParameterPath parse_parameter_path(std::string_view text, const ArchitectureGraph& graph,
                                   const std::string& input);

// The text of a path: "edge:HBM->L2.bandwidth" for field "bandwidth" of the edge HBM->L2.
std::string edge_parameter_path(const ArchitectureGraph& graph, EdgeId edge,
                                std::string_view field);
std::string node_parameter_path(const ArchitectureGraph& graph, NodeId node,
                                std::string_view field);

// The value in SI base units (the unit of parameter_unit).
double parameter_value(const ArchitectureGraph& graph, const ParameterPath& path);
// A count (instances) is rounded to the nearest whole number.
void set_parameter_value(ArchitectureGraph& graph, const ParameterPath& path, double value);
ArchitectureGraph with_parameter_value(ArchitectureGraph graph, const ParameterPath& path,
                                       double value);
// For code that names a path itself: resolved against `graph` (so an efficiency is relative to
// its current throughputs); an InputError names the path.
double parameter_value(const ArchitectureGraph& graph, std::string_view path);
void set_parameter_value(ArchitectureGraph& graph, std::string_view path, double value);

// The field a path's text names, without a graph; nullopt when it is not of the grammar.
std::optional<ParameterField> parameter_field(std::string_view path);
// Fields whose values are whole numbers: a continuous search cannot move them.
bool is_count(ParameterField field);

// A value written for people, in the parameter's unit, parsed: a plain number in SI base units,
// or a quantity with its unit (`200GB/s`, `64B/cycle` of the node's or edge's source clock,
// `2us`, `1.5GHz`, `256KiB`, latencies as cycles or a duration). nullopt when it is neither.
std::optional<double> parse_parameter_value(std::string_view text, const ArchitectureGraph& graph,
                                            const ParameterPath& path);
// An example of values for the field, for messages: "`...bandwidth=100GB/s:2TB/s` ...".
std::string_view parameter_value_example(ParameterField field);

// The unit a value is in ("s", "Hz", "B/s", "cycles", "B", or "" for a factor or a count), and
// the value written for people in it: "12 us", "1.6 TB/s", "1.8 GHz", "64 KiB", "0.84".
std::string_view parameter_unit(ParameterField field);
std::string format_parameter(ParameterField field, double value);
// By the path's text; a text outside the grammar is formatted as a plain number.
std::string parameter_unit(std::string_view path);
std::string format_parameter(std::string_view path, double value);

}  // namespace ts
