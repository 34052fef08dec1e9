// The content hash keys caches of predictions, so it covers every value a prediction reads and
// nothing else: not the graph's name, description, file or source locations. Node names are
// covered because mappings and reports refer to nodes by name. Mapping templates are not: they
// are files of their own, hashed by whoever reads them.
#include "arch/ArchitectureGraph.hpp"
#include "common/Fnv1a.hpp"

namespace ts {

uint64_t ArchitectureGraph::content_hash() const {
  Fnv1a h;
  h.add_string("tilescope-architecture-1");
  h.add_double(clock_hz);
  h.add_double(launch_overhead_s);
  if (power_w > 0) {  // only when set, as below
    h.add_string("power");
    h.add_double(power_w);
  }
  for (const auto& [type, seconds] : launch_overheads) {  // only when set, as below
    h.add_string("launch_overhead:" + type);
    h.add_double(seconds);
  }
  h.add_u64(nodes.size());
  for (const ArchNode& n : nodes) {
    h.add_string(n.name);
    h.add_i64(static_cast<int64_t>(n.kind));
    h.add_i64(n.instances);
    h.add_i64(n.dynamic_dispatch ? 1 : 0);
    h.add_i64(n.padded_tails ? 1 : 0);
    h.add_double(n.clock_hz);
    h.add_double(n.capacity_bytes);
    h.add_i64(n.word_bytes);
    h.add_double(n.read_port_bytes_per_s);
    h.add_double(n.write_port_bytes_per_s);
    h.add_double(n.port_bytes_per_s);
    // Only when set, so that the hashes of graphs without it stay what they were.
    if (n.port_scope == PortScope::per_instance) h.add_string("port_scope:per_instance");
    if (!n.cost_hook.empty()) h.add_string("cost_hook:" + n.cost_hook);  // likewise
    if (n.min_kernel_time_s > 0) {                                       // likewise only when set
      h.add_string("min_kernel_time");
      h.add_double(n.min_kernel_time_s);
    }
    for (const auto& [from, to] : n.runs_as) {  // likewise
      h.add_string("runs_as");
      h.add_i64(static_cast<int64_t>(from));
      h.add_i64(static_cast<int64_t>(to));
    }
    // Energy and area: only when set, so that the hashes of graphs without them stay.
    if (n.leak_j_per_cycle) {
      h.add_string("leak");
      h.add_double(*n.leak_j_per_cycle);
    }
    if (n.area_m2) {
      h.add_string("area");
      h.add_double(*n.area_m2);
    }
    if (n.energy) {
      h.add_string("energy");
      h.add_double(n.energy->read_j);
      h.add_double(n.energy->write_j);
      h.add_double(n.energy->update_j);
      h.add_i64(n.energy->block_words);
    }
    h.add_u64(n.capabilities.size());
    for (const ComputeCapability& c : n.capabilities) {
      h.add_i64(static_cast<int64_t>(c.op_class));
      h.add_i64(static_cast<int64_t>(c.dtype));
      h.add_double(c.ops_per_cycle);
      for (int64_t g : c.granule) h.add_i64(g);
      // Only when set, so that the hashes of graphs without it stay what they were.
      if (c.accumulator) h.add_i64(1000 + static_cast<int64_t>(*c.accumulator));
      if (c.issue) {  // likewise only when set
        h.add_i64(2000);
        h.add_double(c.issue->instructions_per_step);
        h.add_double(c.issue->instructions_per_fragment);
        h.add_double(c.issue->issue_per_cycle);
        h.add_double(c.issue->latency_cycles);
      }
      if (c.operation_cost) {  // likewise only when set
        h.add_i64(3000);
        for (double cost : *c.operation_cost) h.add_double(cost);
      }
      if (c.energy_per_op_j > 0) {  // likewise only when set
        h.add_i64(4000);
        h.add_double(c.energy_per_op_j);
      }
    }
  }
  h.add_u64(edges.size());
  for (const ArchEdge& e : edges) {
    h.add_i64(e.from.value);
    h.add_i64(e.to.value);
    h.add_double(e.bandwidth_bytes_per_s);
    h.add_double(e.latency_cycles);
    h.add_i64(static_cast<int64_t>(e.sharing));
    h.add_i64(e.multicast ? 1 : 0);
    // Only when set, so that the hashes of graphs without a reduction stay what they were.
    if (e.reduction != EdgeReduction::none) {
      h.add_string("reduction");
      h.add_i64(static_cast<int64_t>(e.reduction));
      h.add_i64(static_cast<int64_t>(e.reduction_topology));
      h.add_double(e.reduction_latency_cycles);
      h.add_double(e.reduction_bandwidth_bytes_per_s);
    }
    if (e.alignment) {  // only when set, so that the hashes of graphs without it stay
      h.add_i64(3000 + e.alignment->bytes);
      h.add_double(e.alignment->unaligned_rate);
    }
    if (e.energy_per_byte_j) {  // likewise
      h.add_string("energy_per_byte");
      h.add_double(*e.energy_per_byte_j);
    }
  }
  return h.value();
}

}  // namespace ts
