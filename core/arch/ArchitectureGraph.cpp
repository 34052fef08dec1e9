#include "arch/ArchitectureGraph.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace ts {

const ComputeCapability* ArchNode::declared_capability(OpClass cls, DataType dtype) const {
  for (const auto& c : capabilities)
    if (c.op_class == cls && c.dtype == dtype) return &c;
  return nullptr;
}

// A GPU's lookup-table GEMM reads its tables from shared memory on the CUDA cores, a CPU's with
// a byte shuffle (TBL, PSHUFB) on its SIMD lanes: where a graph declares no lookup rate, a lookup
// runs at the unit's elementwise one.
const ComputeCapability* ArchNode::capability(OpClass cls, DataType dtype) const {
  auto at = [&](DataType t) -> const ComputeCapability* {
    if (const ComputeCapability* c = declared_capability(cls, t)) return c;
    return cls == OpClass::lookup ? declared_capability(OpClass::elementwise, t) : nullptr;
  };
  if (const ComputeCapability* c = at(dtype)) return c;
  // One step only: a `runs_as` target is not itself run as another type.
  const DataType as = runs_as_type(dtype);
  return as == dtype ? nullptr : at(as);
}

DataType ArchNode::runs_as_type(DataType dtype) const {
  for (const auto& [from, to] : runs_as)
    if (from == dtype) return to;
  return dtype;
}

std::string ArchNode::operation_types_text(OpClass cls) const {
  std::string text;
  for (const auto& c : capabilities)
    if (c.op_class == cls) text += (text.empty() ? "" : ", ") + std::string(to_string(c.dtype));
  return text;
}

const ComputeCapability* ArchNode::capability(OpClass cls) const {
  for (const auto& c : capabilities)
    if (c.op_class == cls) return &c;
  return cls == OpClass::lookup ? capability(OpClass::elementwise) : nullptr;
}

double ArchNode::port_share_bytes_per_s(double figure, double users) const {
  const double k = std::max(users, 1.0);
  if (port_scope == PortScope::shared) return figure / k;
  // Users spread evenly over the instances: each instance's port serves its own share of them.
  return figure / std::max(1.0, k / static_cast<double>(instances));
}

int64_t ArchEdge::reduction_hops(int64_t partials) const {
  if (reduction != EdgeReduction::network || partials <= 1) return 0;
  if (reduction_topology == ReductionTopology::chain) return partials - 1;
  return std::bit_width(static_cast<uint64_t>(partials - 1));  // ceil(log2 partials)
}

double ArchitectureGraph::launch_overhead_for(std::string_view operator_type) const {
  const auto it = launch_overheads.find(std::string(operator_type));
  return it == launch_overheads.end() ? launch_overhead_s : it->second;
}

double ArchitectureGraph::sustained_ops_per_cycle(const ArchNode& node,
                                                  const ComputeCapability& cap) const {
  if (!(power_w > 0) || !(cap.energy_per_op_j > 0)) return cap.ops_per_cycle;
  const double limit =
      power_w / (static_cast<double>(node.instances) * node.clock_hz * cap.energy_per_op_j);
  return std::min(cap.ops_per_cycle, limit);
}

void ArchitectureGraph::finalize() {
  out_.assign(nodes.size(), {});
  for (size_t e = 0; e < edges.size(); ++e) {
    const ArchEdge& edge = edges[e];
    auto valid = [&](NodeId id) { return id.valid() && id.index() < nodes.size(); };
    // A graph built in code skips the loader's checks; fail here rather than index out of range.
    if (!valid(edge.from) || !valid(edge.to))
      throw std::invalid_argument("edge " + std::to_string(e) +
                                  " names a node that does not exist");
    out_[edge.from.index()].push_back(EdgeId{static_cast<int32_t>(e)});
  }
}

std::optional<NodeId> ArchitectureGraph::find_node(std::string_view node_name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == node_name) return NodeId{static_cast<int32_t>(i)};
  return std::nullopt;
}

std::vector<NodeId> ArchitectureGraph::node_ids() const {
  std::vector<NodeId> ids(nodes.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = NodeId{static_cast<int32_t>(i)};
  return ids;
}

std::vector<EdgeId> ArchitectureGraph::edge_ids() const {
  std::vector<EdgeId> ids(edges.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = EdgeId{static_cast<int32_t>(i)};
  return ids;
}

EdgeId ArchitectureGraph::edge_between(NodeId from, NodeId to) const {
  for (EdgeId e : out_edges(from))
    if (edge(e).to == to) return e;
  return EdgeId{};
}

double ArchitectureGraph::fan_out(EdgeId edge_id) const {
  const ArchEdge& e = edge(edge_id);
  return static_cast<double>(node(e.to).instances) / static_cast<double>(node(e.from).instances);
}

double ArchitectureGraph::effective_bandwidth(EdgeId edge_id, int64_t users) const {
  const ArchEdge& e = edge(edge_id);
  return effective_bandwidth(edge_id, users, e.bandwidth_bytes_per_s);
}

double ArchitectureGraph::effective_bandwidth(EdgeId edge_id, int64_t users,
                                              double link_bytes_per_s) const {
  const ArchEdge& e = edge(edge_id);
  double k = static_cast<double>(std::max<int64_t>(users, 1));
  double bw = e.sharing == EdgeSharing::shared ? link_bytes_per_s / k : link_bytes_per_s;
  const ArchNode& src = node(e.from);
  const ArchNode& dst = node(e.to);
  auto port = [&](const ArchNode& n, double figure) {
    if (figure > 0) bw = std::min(bw, n.port_share_bytes_per_s(figure, k));
  };
  port(src, src.read_port_bytes_per_s);
  port(dst, dst.write_port_bytes_per_s);
  port(src, src.port_bytes_per_s);
  port(dst, dst.port_bytes_per_s);
  return bw;
}

std::vector<NodeId> ArchitectureGraph::compute_nodes_for(OpClass cls) const {
  std::vector<NodeId> ids;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == NodeKind::compute && nodes[i].capability(cls))
      ids.push_back(NodeId{static_cast<int32_t>(i)});
  return ids;
}

}  // namespace ts
