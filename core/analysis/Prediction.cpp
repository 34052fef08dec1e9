#include "analysis/Prediction.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/ByteFormat.hpp"

namespace ts {

std::string bound_text(const ArchitectureGraph& graph, BoundBy bound) {
  if (bound.is_edge()) {
    const ArchEdge& e = graph.edge(bound.edge_id());
    return "edge:" + graph.node(e.from).name + "->" + graph.node(e.to).name;
  }
  if (bound.is_compute()) return "compute:" + graph.node(bound.compute_node()).name;
  if (bound.is_kernel_floor()) return "kernel_floor:" + graph.node(bound.compute_node()).name;
  return "unknown";
}

namespace {

std::string loops_text(const MappingProgram& p, const std::array<Factor, kMaxDims>& factors,
                       const std::array<uint8_t, kMaxDims>* order) {
  std::string text;
  for (int k = 0; k < p.ndims; ++k) {
    const int d = order ? (*order)[k] : k;
    const Factor& f = factors[d];
    if (f.full == 1 && !f.has_tail() && !f.free) continue;
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", p.op->dims[d].name, factor_text(f));
  }
  return text;
}

std::string time_text(double s) {
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.3f} us", s * 1e6);
  return fmt::format("{:.1f} ns", s * 1e9);
}

// Spatial tiles against the instances that run them: a short last wave is where small problems
// lose the chip (each wave costs as much as a full one).
std::string waves_text(const NodeResult& n) {
  if (n.spatial_tiles <= 1 || !n.timing) return {};
  const int64_t waves = n.timing->waves;
  const int64_t last = n.spatial_tiles - (waves - 1) * n.instances;
  std::string text = fmt::format(" ({} tiles on {} instances: {} wave{}", n.spatial_tiles,
                                 n.instances, waves, waves == 1 ? "" : "s");
  if (last < n.instances)
    text += fmt::format(", {} {} busy", waves == 1 ? "only" : "the last with", last);
  return text + ")";
}

}  // namespace

std::string explain_tree(const MappingProgram& p, const AnalysisResult& e) {
  const ArchitectureGraph& g = *p.graph;
  std::string out;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const ProgramNode& n = p.nodes[i];
    std::string line(static_cast<size_t>(n.depth) * 2, ' ');
    switch (n.kind) {
      case MappingNodeKind::tile: {
        line += fmt::format("tile {}", g.node(n.memory).name);
        std::string t = loops_text(p, n.temporal, &n.order), s = loops_text(p, n.spatial, nullptr);
        if (!t.empty()) line += "  temporal " + t;
        if (!s.empty()) line += "  spatial " + s;
        if (n.double_buffer) line += "  [double-buffered]";
        if (n.streamed) line += "  [streamed]";
        if (n.pipeline_restarts) line += "  [pipeline restarts]";
        if (n.concurrent_loads) line += "  [concurrent loads]";
        std::string buffers;
        // As the capacity check counts them (TileBuffer).
        if (i < e.nodes.size())
          for (const TileBuffer& b : e.nodes[i].buffers)
            buffers +=
                fmt::format("{}{}@{} {}", buffers.empty() ? "" : ", ", p.op->tensors[b.tensor].name,
                            g.node(b.memory).name, format_bytes(b.bytes));
        if (!buffers.empty())
          line += fmt::format("\n{:{}}buffers: {}", "", n.depth * 2 + 4, buffers);
        break;
      }
      case MappingNodeKind::op: {
        line += fmt::format("op {} ({})", g.node(n.compute).name, p.op->stages[n.stage].name);
        std::string f = loops_text(p, n.op_factor, nullptr);
        if (!f.empty()) line += fmt::format("  block {}", f);
        break;
      }
      case MappingNodeKind::scope:
        line += fmt::format("scope {}", to_string(n.scope));
        break;
      case MappingNodeKind::trans:
        line += fmt::format("trans {} -> {}", p.op->tensors[n.tensor].name, g.node(n.target).name);
        for (size_t k = 0; k < n.transfer.path.size(); ++k)
          line += fmt::format("{}{}", k == 0 ? "  via " : ", ",
                              bound_text(g, BoundBy::edge(n.transfer.path[k])).substr(5));
        break;
    }
    if (n.kind == MappingNodeKind::tile && i < e.nodes.size() && e.nodes[i].timing) {
      const NodeReport& r = *e.nodes[i].timing;
      line += fmt::format("\n{:{}}", "", n.depth * 2 + 4) +
              fmt::format(
                  "time {}  iterations {:.0f}{}  per iteration: load {}, child {}, store {}  "
                  "bound by {}",
                  time_text(r.time_s), r.iterations, waves_text(e.nodes[i]), time_text(r.load_s),
                  time_text(r.compute_s), time_text(r.store_s), bound_text(g, r.bound));
    }
    out += line + "\n";
  }
  return out;
}

Prediction make_prediction(const MappingProgram& p, const AnalysisResult& e) {
  const ArchitectureGraph& g = *p.graph;
  Prediction r;
  r.op_name = p.op->name;
  r.op_type = std::string(to_string(p.op->type));
  r.shape = p.op->shape_text();
  r.mapping_name = p.mapping_name;
  r.device_us = e.device_s * 1e6;
  const double launch_s = g.launch_overhead_for(to_string(p.op->type));
  r.launch_overhead_us = launch_s * 1e6;
  r.cycles = e.device_s * g.clock_hz;
  r.flops = p.op->total_flops();
  r.bound_by = launch_s > e.device_s ? "launch" : bound_text(g, e.bound);
  // Utilisation of the compute node that bounds, or else of the one running the heaviest stage.
  NodeId unit = e.bound.compute_node();
  double ideal_s = 0;
  for (const auto& n : p.nodes) {
    if (n.kind != MappingNodeKind::op) continue;
    if (!unit.valid()) unit = n.compute;
    const Stage& st = p.op->stages[n.stage];
    double points = 1;
    for (int d : st.dims) points *= static_cast<double>(p.op->dims[d].size);
    const ArchNode& node = g.node(n.compute);
    ideal_s += points * n.priced_ops_per_point /
               (n.capability->ops_per_cycle * static_cast<double>(node.instances) * node.clock_hz);
  }
  r.utilization = e.device_s > 0 ? std::min(1.0, ideal_s / e.device_s) : 0;
  for (size_t k = 0; k < e.edge_bytes.size(); ++k) {
    if (e.edge_bytes[k] <= 0) continue;
    const ArchEdge& edge = g.edge(EdgeId{static_cast<int32_t>(k)});
    r.traffic.push_back({g.node(edge.from).name + "->" + g.node(edge.to).name, e.edge_bytes[k]});
  }
  // Partial sums a memory reads back to add to (`reduction: memory`): its own read traffic,
  // written as a flow out of the memory so that every reader of "FROM->TO" takes it.
  for (size_t k = 0; k < e.read_back_bytes.size(); ++k)
    if (e.read_back_bytes[k] > 0) {
      const std::string& memory = g.nodes[k].name;
      r.traffic.push_back({memory + "->" + memory + " (read back)", e.read_back_bytes[k]});
    }
  for (size_t k = 0; k < p.memories.size(); ++k) {
    const ArchNode& mem = g.node(p.memories[k]);
    r.residency.push_back({mem.name, e.memory_usage[k], mem.capacity_bytes});
  }
  for (const TensorAccesses& a : e.accesses.entries)
    r.accesses.push_back({g.node(a.memory).name, p.op->tensors[static_cast<size_t>(a.tensor)].name,
                          a.reads, a.fills, a.updates, a.spatial_reductions});
  r.energy = energy_of(p, e);
  r.explain = explain_tree(p, e);
  return r;
}

}  // namespace ts
