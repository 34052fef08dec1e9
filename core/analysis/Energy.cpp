#include "analysis/Energy.hpp"

#include <fmt/format.h>

#include <set>

namespace ts {
namespace {

bool graph_gives_energy(const ArchitectureGraph& g) {
  for (const ArchNode& n : g.nodes) {
    if (n.energy || n.leak_j_per_cycle) return true;
    for (const ComputeCapability& c : n.capabilities)
      if (c.energy_per_op_j > 0) return true;
  }
  for (const ArchEdge& e : g.edges)
    if (e.energy_per_byte_j) return true;
  return false;
}

// A DRAM's published energy per bit covers the access and the I/O, so a graph gives it on the
// memory's edges; a memory every one of whose edges is priced is priced by them, not unpriced.
bool priced_by_edges(const ArchitectureGraph& g, NodeId memory) {
  bool any = false;
  for (const ArchEdge& e : g.edges) {
    if (e.from != memory && e.to != memory) continue;
    if (!e.energy_per_byte_j) return false;
    any = true;
  }
  return any;
}

}  // namespace

EnergyReport energy_of(const MappingProgram& p, const AnalysisResult& r) {
  const ArchitectureGraph& g = *p.graph;
  EnergyReport out;
  for (const ArchNode& n : g.nodes)
    if (n.area_m2) out.area_m2 = out.area_m2.value_or(0) + *n.area_m2 * n.instances;
  if (!graph_gives_energy(g) || !r.valid()) return out;

  std::vector<NodeEnergy> nodes(g.nodes.size());
  std::vector<char> used(g.nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].node = NodeId{static_cast<int32_t>(i)};
    nodes[i].name = g.nodes[i].name;
  }
  std::set<std::string> unpriced;
  for (const TensorAccesses& a : r.accesses.entries) {
    const ArchNode& m = g.node(a.memory);
    NodeEnergy& e = nodes[a.memory.index()];
    used[a.memory.index()] = 1;
    if (!m.energy) {
      if (priced_by_edges(g, a.memory)) continue;
      unpriced.insert(fmt::format("memory '{}' has no `energy`", m.name));
      continue;
    }
    const double block = static_cast<double>(m.energy->block_words);
    e.reads_j += a.reads / block * m.energy->read_j;
    e.fills_j += a.fills / block * m.energy->write_j;
    e.updates_j += a.updates / block * m.energy->update_j;
  }
  for (const ProgramNode& node : p.nodes) {
    if (node.kind != MappingNodeKind::op || node.stage < 0) continue;
    NodeEnergy& e = nodes[node.compute.index()];
    used[node.compute.index()] = 1;
    const double ops = p.op->stage_points(p.op->stages[static_cast<size_t>(node.stage)]);
    if (node.capability && node.capability->energy_per_op_j > 0)
      e.compute_j += ops * node.capability->energy_per_op_j;
    else
      unpriced.insert(fmt::format("compute node '{}' has no `energy_per_op` for this operation",
                                  g.node(node.compute).name));
  }
  // Leakage: every instance of every node that leaks, over the operator's time.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ArchNode& n = g.nodes[i];
    if (!n.leak_j_per_cycle) continue;
    nodes[i].leak_j = *n.leak_j_per_cycle * r.device_s * n.clock_hz * n.instances;
    used[i] = 1;
  }
  for (size_t k = 0; k < r.edge_bytes.size(); ++k) {
    if (r.edge_bytes[k] <= 0) continue;
    const ArchEdge& e = g.edge(EdgeId{static_cast<int32_t>(k)});
    if (e.energy_per_byte_j) out.edges_j += *e.energy_per_byte_j * r.edge_bytes[k];
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!used[i]) continue;
    out.total_j += nodes[i].total_j();
    out.nodes.push_back(nodes[i]);
  }
  out.total_j += out.edges_j;
  out.unpriced.assign(unpriced.begin(), unpriced.end());
  out.known = out.unpriced.empty();
  out.partial = !out.known;
  return out;
}

}  // namespace ts
