#include "analysis/MappingWriter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace ts {
namespace {

std::string factors_text(const MappingProgram& p, const std::array<Factor, kMaxDims>& factors,
                         const std::array<uint8_t, kMaxDims>* order, bool keep_ones) {
  std::string text;
  for (int k = 0; k < p.ndims; ++k) {
    const int d = order ? (*order)[k] : k;
    const Factor& f = factors[d];
    if (!keep_ones && f.full == 1 && !f.has_tail()) continue;
    text += fmt::format("{}{}: {}", text.empty() ? "" : ", ", p.op->dims[d].name, factor_text(f));
  }
  return text;
}

// `keep: {A: true, B: false}` for the tensors whose keep the file (or the mapper) stated.
std::string keep_text(const MappingProgram& p, const ProgramNode& n) {
  std::string text;
  for (int t = 0; t < p.ntensors; ++t) {
    if (n.keep[t] == KeepChoice::inferred) continue;
    const std::string value =
        n.keep[t] == KeepChoice::free ? "\"?\"" : std::string(to_string(n.keep[t]));
    text += fmt::format("{}{}: {}", text.empty() ? "" : ", ", p.op->tensors[t].name, value);
  }
  return text.empty() ? text : "keep: {" + text + "}";
}

// Whether an intermediate has no buffer at tile `id` because the analysis keeps it below (the
// tile encloses the innermost tile around its producer and consumers: place_intermediates), not
// because the mapping bypasses it there, as a pass of a fused operator mapped stages apart does.
bool placed_below(const MappingProgram& p, int id, int t) {
  auto encloses = [&](int a, int b) {
    for (int x = b; x >= 0; x = p.nodes[static_cast<size_t>(x)].parent)
      if (x == a) return true;
    return false;
  };
  int lca = -1;
  for (size_t k = 0; k < p.nodes.size(); ++k) {
    const ProgramNode& op = p.nodes[k];
    if (op.kind != MappingNodeKind::op) continue;
    const Stage& st = p.op->stages[static_cast<size_t>(op.stage)];
    if (st.output != t && std::find(st.inputs.begin(), st.inputs.end(), t) == st.inputs.end())
      continue;
    const int here = static_cast<int>(k);
    if (lca < 0) lca = here;
    while (!encloses(lca, here)) lca = p.nodes[static_cast<size_t>(lca)].parent;
  }
  // Uses outside this tile put the intermediate's home above it: then no buffer here is a bypass.
  if (lca < 0 || !encloses(id, lca)) return false;
  for (int x = lca; x >= 0 && x != id; x = p.nodes[static_cast<size_t>(x)].parent)
    if (p.nodes[static_cast<size_t>(x)].kind == MappingNodeKind::tile) return true;
  return false;
}

void write_node(std::ostringstream& out, const MappingProgram& p, int id, int indent,
                bool first_key_dash) {
  const ProgramNode& n = p.nodes[static_cast<size_t>(id)];
  const ArchitectureGraph& g = *p.graph;
  const std::string pad(static_cast<size_t>(indent), ' ');
  auto line = [&, first = first_key_dash](const std::string& text) mutable {
    out << (first ? pad.substr(0, pad.size() - 2) + "- " : pad) << text << "\n";
    first = false;
  };
  switch (n.kind) {
    case MappingNodeKind::tile: {
      line("tile: " + g.node(n.memory).name);
      std::string buffers;
      for (int t = 0; t < p.ntensors; ++t) {
        if (n.buffer[t] == n.memory) continue;
        // A tile that never holds a tensor because no stage below uses it needs no entry.
        bool used = false;
        for (size_t k = static_cast<size_t>(id); k < p.nodes.size(); ++k) {
          const ProgramNode& below = p.nodes[k];
          if (k != static_cast<size_t>(id) && below.depth <= n.depth) break;
          if (below.kind != MappingNodeKind::op) continue;
          const Stage& st = p.op->stages[static_cast<size_t>(below.stage)];
          used = used || st.output == t;
          for (int in : st.inputs) used = used || in == t;
        }
        if (!used) continue;
        if (!n.buffer[t].valid() && p.op->is_intermediate(t) && placed_below(p, id, t)) continue;
        buffers +=
            fmt::format("{}{}: {}", buffers.empty() ? "" : ", ", p.op->tensors[t].name,
                        !n.buffer[t].valid() ? std::string("bypass") : g.node(n.buffer[t]).name);
      }
      if (!buffers.empty()) line("buffers: {" + buffers + "}");
      if (const std::string keep = keep_text(p, n); !keep.empty()) line(keep);
      if (n.double_buffer) line("double_buffer: true");
      if (n.streamed) line("streamed: true");
      if (n.pipeline_restarts) line("pipeline_restarts: true");
      if (n.concurrent_loads) line("concurrent_loads: true");
      if (n.footprint_step) line("footprint: step");
      if (n.resident_parts > 1) line(fmt::format("resident_parts: {}", n.resident_parts));
      std::string temporal = factors_text(p, n.temporal, &n.order, false);
      if (!temporal.empty()) line("temporal: {" + temporal + "}");
      std::string spatial = factors_text(p, n.spatial, nullptr, false);
      if (!spatial.empty()) line("spatial: {" + spatial + "}");
      break;
    }
    case MappingNodeKind::op: {
      line("op: " + g.node(n.compute).name);
      if (p.op->stages.size() > 1)
        line("stage: " + p.op->stages[static_cast<size_t>(n.stage)].name);
      std::string f = factors_text(p, n.op_factor, nullptr, false);
      if (!f.empty()) line("factors: {" + f + "}");
      std::array<Factor, kMaxDims> warps;
      for (int d = 0; d < kMaxDims; ++d) warps[d] = Factor::exact(n.op_warps[d]);
      const std::string w = factors_text(p, warps, nullptr, false);
      if (!w.empty()) line("warps: {" + w + "}");
      if (const std::string keep = keep_text(p, n); !keep.empty()) line(keep);
      break;
    }
    case MappingNodeKind::scope:
      line(std::string("scope: ") + std::string(to_string(n.scope)));
      break;
    case MappingNodeKind::trans:
      line("trans: " + p.op->tensors[static_cast<size_t>(n.tensor)].name);
      line("to: " + g.node(n.target).name);
      break;
  }
  if (!n.children.empty()) {
    line("children:");
    for (int c : n.children) write_node(out, p, c, indent + 4, true);
  }
}

}  // namespace

std::string mapping_yaml(const MappingProgram& p, const std::string& name,
                         const std::string& header_comment) {
  std::ostringstream out;
  std::istringstream comment(header_comment);
  for (std::string l; std::getline(comment, l);) out << "# " << l << "\n";
  out << "version: 1\nkind: mapping\nname: " << name << "\noperator: " << p.op->name << "\ntree:\n";
  write_node(out, p, 0, 2, false);
  return out.str();
}

}  // namespace ts
