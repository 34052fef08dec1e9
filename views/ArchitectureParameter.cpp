#include "views/ArchitectureParameter.hpp"

#include "arch/ArchitectureParameterPath.hpp"

namespace ts::views {

std::vector<EditableParameter> graph_parameters() {
  return {{"clock", "clock", 1e9, "GHz", 3, false},
          {"launch_overhead", "launch overhead", 1e-6, "us", 3, false}};
}

std::vector<EditableParameter> node_parameters(const ArchitectureGraph& graph, NodeId node) {
  const ArchNode& n = graph.node(node);
  std::vector<EditableParameter> out;
  if (n.kind == NodeKind::memory) {
    out.push_back(
        {node_parameter_path(graph, node, "capacity"), "capacity", 1024, "KiB", 1, false});
    // A port limit that the file leaves at 0 means "none"; editing it to a value adds one.
    out.push_back({node_parameter_path(graph, node, "bandwidth"), "port bandwidth (0: none)", 1e9,
                   "GB/s", 1, false});
  } else {
    out.push_back({node_parameter_path(graph, node, "efficiency"), "efficiency (x throughput)", 1,
                   "", 3, false});
  }
  out.push_back({node_parameter_path(graph, node, "instances"), "instances", 1, "", 0, true});
  return out;
}

std::vector<EditableParameter> edge_parameters(const ArchitectureGraph& graph, EdgeId edge) {
  return {{edge_parameter_path(graph, edge, "bandwidth"), "bandwidth", 1e9, "GB/s", 1, false},
          {edge_parameter_path(graph, edge, "latency"), "latency", 1, "cycles", 0, false}};
}

// Resolved against the graph as loaded: an efficiency is then relative to its throughputs.
double read_parameter(const ArchitectureGraph& graph, const ArchitectureGraph& baseline,
                      const std::string& path) {
  return parameter_value(graph, parse_parameter_path(path, baseline, "inspector"));
}

void write_parameter(ArchitectureGraph& graph, const ArchitectureGraph& baseline,
                     const std::string& path, double value) {
  set_parameter_value(graph, parse_parameter_path(path, baseline, "inspector"), value);
}

}  // namespace ts::views
