#include "arch/ArchitectureGraph.hpp"

#include <algorithm>
#include <stdexcept>

namespace ts {

const ComputeCapability* ArchNode::capability(OpClass cls, DataType dtype) const {
  for (const auto& c : capabilities)
    if (c.op_class == cls && c.dtype == dtype) return &c;
  return nullptr;
}

const ComputeCapability* ArchNode::capability(OpClass cls) const {
  for (const auto& c : capabilities)
    if (c.op_class == cls) return &c;
  return nullptr;
}

void ArchitectureGraph::finalize() {
  out_.assign(nodes.size(), {});
  for (size_t e = 0; e < edges.size(); ++e) {
    const ArchEdge& edge = edges[e];
    auto valid = [&](int id) { return id >= 0 && static_cast<size_t>(id) < nodes.size(); };
    // A graph built in code skips the loader's checks; fail here rather than index out of range.
    if (!valid(edge.from) || !valid(edge.to))
      throw std::invalid_argument("edge " + std::to_string(e) +
                                  " names a node that does not exist");
    out_[static_cast<size_t>(edge.from)].push_back(static_cast<int>(e));
  }
}

std::optional<int> ArchitectureGraph::find_node(std::string_view node_name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == node_name) return static_cast<int>(i);
  return std::nullopt;
}

int ArchitectureGraph::edge_between(int from, int to) const {
  for (int e : out_edges(from))
    if (edges[static_cast<size_t>(e)].to == to) return e;
  return -1;
}

double ArchitectureGraph::fan_out(int edge_id) const {
  const ArchEdge& e = edge(edge_id);
  return static_cast<double>(node(e.to).instances) / static_cast<double>(node(e.from).instances);
}

double ArchitectureGraph::effective_bandwidth(int edge_id, int64_t users) const {
  const ArchEdge& e = edge(edge_id);
  double k = static_cast<double>(std::max<int64_t>(users, 1));
  double bw =
      e.sharing == EdgeSharing::shared ? e.bandwidth_bytes_per_s / k : e.bandwidth_bytes_per_s;
  const ArchNode& src = node(e.from);
  const ArchNode& dst = node(e.to);
  if (src.read_port_bytes_per_s > 0) bw = std::min(bw, src.read_port_bytes_per_s / k);
  if (dst.write_port_bytes_per_s > 0) bw = std::min(bw, dst.write_port_bytes_per_s / k);
  if (src.port_bytes_per_s > 0) bw = std::min(bw, src.port_bytes_per_s / k);
  if (dst.port_bytes_per_s > 0) bw = std::min(bw, dst.port_bytes_per_s / k);
  return bw;
}

std::vector<int> ArchitectureGraph::compute_nodes_for(OpClass cls) const {
  std::vector<int> ids;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == NodeKind::compute && nodes[i].capability(cls))
      ids.push_back(static_cast<int>(i));
  return ids;
}

}  // namespace ts
