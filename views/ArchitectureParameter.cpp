#include "views/ArchitectureParameter.hpp"

#include "calibrate/GraphParameter.hpp"

namespace ts::views {
namespace {

// node:NAME.FIELD -> the node's id, or an invalid id when the path is not of that form.
NodeId node_of(const ArchitectureGraph& graph, const std::string& path, const std::string& field) {
  const std::string suffix = "." + field;
  if (path.rfind("node:", 0) != 0 || path.size() <= suffix.size() + 5 ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
    return NodeId{};
  const auto id = graph.find_node(path.substr(5, path.size() - 5 - suffix.size()));
  if (!id) throw InputError({"inspector", 0, 0}, "no node named in '" + path + "'");
  return *id;
}

}  // namespace

std::string edge_path(const ArchitectureGraph& graph, EdgeId edge, const std::string& field) {
  const ArchEdge& e = graph.edge(edge);
  return "edge:" + graph.node(e.from).name + "->" + graph.node(e.to).name + "." + field;
}

std::string node_path(const ArchitectureGraph& graph, NodeId node, const std::string& field) {
  return "node:" + graph.node(node).name + "." + field;
}

std::vector<EditableParameter> graph_parameters() {
  return {{"clock", "clock", 1e9, "GHz", 3, false},
          {"launch_overhead", "launch overhead", 1e-6, "us", 3, false}};
}

std::vector<EditableParameter> node_parameters(const ArchitectureGraph& graph, NodeId node) {
  const ArchNode& n = graph.node(node);
  std::vector<EditableParameter> out;
  if (n.kind == NodeKind::memory) {
    out.push_back({node_path(graph, node, "capacity"), "capacity", 1024, "KiB", 1, false});
    // A port limit that the file leaves at 0 means "none"; editing it to a value adds one.
    out.push_back(
        {node_path(graph, node, "bandwidth"), "port bandwidth (0: none)", 1e9, "GB/s", 1, false});
  } else {
    out.push_back(
        {node_path(graph, node, "efficiency"), "efficiency (x throughput)", 1, "", 3, false});
  }
  out.push_back({node_path(graph, node, "instances"), "instances", 1, "", 0, true});
  return out;
}

std::vector<EditableParameter> edge_parameters(const ArchitectureGraph& graph, EdgeId edge) {
  return {{edge_path(graph, edge, "bandwidth"), "bandwidth", 1e9, "GB/s", 1, false},
          {edge_path(graph, edge, "latency"), "latency", 1, "cycles", 0, false}};
}

double read_parameter(const ArchitectureGraph& graph, const ArchitectureGraph& baseline,
                      const std::string& path) {
  if (const NodeId n = node_of(graph, path, "capacity"); n.valid())
    return graph.node(n).capacity_bytes;
  if (const NodeId n = node_of(graph, path, "instances"); n.valid())
    return static_cast<double>(graph.node(n).instances);
  if (node_of(graph, path, "efficiency").valid())
    return get_parameter(graph, parse_graph_parameter(path, baseline, "inspector"));
  return get_parameter(graph, path);
}

void write_parameter(ArchitectureGraph& graph, const ArchitectureGraph& baseline,
                     const std::string& path, double value) {
  if (const NodeId n = node_of(graph, path, "capacity"); n.valid()) {
    graph.nodes[n.index()].capacity_bytes = value;
    return;
  }
  if (const NodeId n = node_of(graph, path, "instances"); n.valid()) {
    graph.nodes[n.index()].instances = static_cast<int64_t>(value + 0.5);
    return;
  }
  if (node_of(graph, path, "efficiency").valid()) {
    set_parameter(graph, parse_graph_parameter(path, baseline, "inspector"), value);
    return;
  }
  set_parameter(graph, path, value);
}

}  // namespace ts::views
