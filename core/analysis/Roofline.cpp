#include "analysis/Roofline.hpp"

#include <algorithm>

namespace ts {
namespace {

double peak_ops_per_s(const ArchitectureGraph& g, OpClass cls, DataType dtype) {
  double declared = 0, any = 0;
  for (const ArchNode& n : g.nodes) {
    if (n.kind != NodeKind::compute) continue;
    const double scale = static_cast<double>(n.instances) * n.clock_hz;
    if (const ComputeCapability* c = n.declared_capability(cls, dtype))
      declared += c->ops_per_cycle * scale;
    if (const ComputeCapability* c = n.capability(cls))
      any = std::max(any, c->ops_per_cycle * scale);
  }
  return declared > 0 ? declared : any;
}

double outer_bandwidth(const ArchitectureGraph& g) {
  const ArchNode* outer = nullptr;
  NodeId outer_id;
  for (NodeId id : g.node_ids()) {
    const ArchNode& n = g.node(id);
    if (n.kind == NodeKind::memory && (!outer || n.capacity_bytes > outer->capacity_bytes)) {
      outer = &n;
      outer_id = id;
    }
  }
  if (!outer) return 0;
  if (outer->port_bytes_per_s > 0) return outer->port_total_bytes_per_s(outer->port_bytes_per_s);
  if (outer->read_port_bytes_per_s > 0)
    return outer->port_total_bytes_per_s(outer->read_port_bytes_per_s);
  double best = 0;
  for (EdgeId e : g.out_edges(outer_id)) best = std::max(best, g.edge(e).bandwidth_bytes_per_s);
  return best;
}

}  // namespace

Roofline roofline(const Operator& op, const ArchitectureGraph& graph) {
  Roofline r;
  const DataType dtype = op.primary_dtype();
  for (const Stage& s : op.stages) {
    const double peak = peak_ops_per_s(graph, s.op_class, dtype);
    const double work = op.stage_points(s) * s.ops_per_point;  // MACs for matmul: its rate's unit
    if (peak > 0) r.compute_s += work / peak;
  }
  double bytes = 0;
  for (size_t t = 0; t < op.tensors.size(); ++t)
    if (!op.is_intermediate(static_cast<int>(t))) bytes += op.tensor_bytes(static_cast<int>(t));
  const double bandwidth = outer_bandwidth(graph);
  if (bandwidth > 0) r.memory_s = bytes / bandwidth;
  return r;
}

}  // namespace ts
