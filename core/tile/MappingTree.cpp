#include "tile/MappingTree.hpp"

#include <algorithm>

namespace ts {

std::string factor_text(const Factor& f) {
  if (f.free) return "?";
  if (f.has_tail()) return std::to_string(f.full) + "/" + std::to_string(f.tail);
  return std::to_string(f.full);
}

namespace {

std::string factors_text(const std::vector<DimFactor>& factors, std::string_view sep) {
  std::string text;
  for (const auto& f : factors)
    text += (text.empty() ? "" : std::string(sep)) + f.dim + "=" + factor_text(f.factor);
  return text;
}

std::vector<DimFactor> by_dim(std::vector<DimFactor> factors) {
  std::stable_sort(factors.begin(), factors.end(),
                   [](const DimFactor& a, const DimFactor& b) { return a.dim < b.dim; });
  return factors;
}

bool any_free(const std::vector<DimFactor>& factors) {
  return std::any_of(factors.begin(), factors.end(),
                     [](const DimFactor& f) { return f.factor.free; });
}

bool has_free(const MappingNode& node) {
  if (any_free(node.temporal) || any_free(node.spatial) || any_free(node.op_factors)) return true;
  if (std::any_of(node.keeps.begin(), node.keeps.end(),
                  [](const TensorKeep& k) { return k.choice == KeepChoice::free; }))
    return true;
  if (std::any_of(node.placements.begin(), node.placements.end(),
                  [](const TensorPlacement& p) { return p.free(); }))
    return true;
  return std::any_of(node.children.begin(), node.children.end(), has_free);
}

std::string keeps_text(const std::vector<TensorKeep>& keeps, std::string_view sep) {
  std::string text;
  for (const auto& k : keeps)
    text +=
        (text.empty() ? "" : std::string(sep)) + k.tensor + "=" + std::string(to_string(k.choice));
  return text;
}

std::vector<TensorKeep> keeps_by_tensor(std::vector<TensorKeep> keeps) {
  std::stable_sort(keeps.begin(), keeps.end(),
                   [](const TensorKeep& a, const TensorKeep& b) { return a.tensor < b.tensor; });
  return keeps;
}

std::string render_line(const MappingNode& n) {
  std::string line;
  switch (n.kind) {
    case MappingNodeKind::tile:
      line = "tile " + n.memory;
      if (!n.temporal.empty()) line += "  temporal " + factors_text(n.temporal, " ");
      if (n.order_free) line += "  order ?";
      if (!n.spatial.empty()) line += "  spatial " + factors_text(n.spatial, " ");
      if (!n.placements.empty()) {
        line += "  buffers";
        for (const auto& p : n.placements) line += " " + p.tensor + "=" + p.memory;
      }
      if (!n.keeps.empty()) line += "  keep " + keeps_text(n.keeps, " ");
      if (n.double_buffer_free)
        line += "  [db?]";
      else if (n.double_buffer)
        line += "  [db]";
      if (n.streamed) line += "  [streamed]";
      if (n.pipeline_restarts) line += "  [restarts]";
      if (n.concurrent_loads) line += "  [concurrent loads]";
      if (n.footprint_step) line += "  [footprint: step]";
      if (n.resident_parts > 1) line += "  [" + std::to_string(n.resident_parts) + " resident]";
      break;
    case MappingNodeKind::op:
      line = "op " + n.compute;
      if (!n.stage.empty()) line += " stage " + n.stage;
      if (!n.op_factors.empty()) line += "  " + factors_text(n.op_factors, " ");
      if (!n.keeps.empty()) line += "  keep " + keeps_text(n.keeps, " ");
      break;
    case MappingNodeKind::scope:
      line = "scope " + std::string(to_string(n.scope));
      break;
    case MappingNodeKind::trans:
      line = "trans " + n.tensor + " -> " + n.target;
      break;
  }
  return line;
}

void render(const MappingNode& n, int depth, std::string& out) {
  out += std::string(static_cast<size_t>(depth) * 2, ' ') + render_line(n) + "\n";
  for (const auto& c : n.children) render(c, depth + 1, out);
}

// Every field that changes what the tree means, spelled out even at its default, in an order
// that does not depend on how the file was written wherever the order carries no meaning.
std::string canonical_line(const MappingNode& n) {
  switch (n.kind) {
    case MappingNodeKind::tile: {
      std::vector<TensorPlacement> placements = n.placements;
      std::stable_sort(placements.begin(), placements.end(),
                       [](const auto& a, const auto& b) { return a.tensor < b.tensor; });
      std::string buffers;
      for (const auto& p : placements)
        buffers += (buffers.empty() ? "" : ",") + p.tensor + "=" + p.memory;
      // Loop order is meaning, unless the mapper is free to choose it.
      const auto temporal = n.order_free ? by_dim(n.temporal) : n.temporal;
      return "tile(" + n.memory + ";t=" + factors_text(temporal, ",") +
             ";order=" + (n.order_free ? "free" : "fixed") +
             ";s=" + factors_text(by_dim(n.spatial), ",") + ";db=" +
             (n.double_buffer_free ? "?"
              : n.double_buffer    ? "1"
                                   : "0") +
             ";b=" + buffers + (n.streamed ? ";st=1" : "") + (n.pipeline_restarts ? ";rs=1" : "") +
             (n.concurrent_loads ? ";cl=1" : "") + (n.footprint_step ? ";fs=1" : "") +
             (n.resident_parts > 1 ? ";rp=" + std::to_string(n.resident_parts) : "") +
             // Absent when the file says nothing, so that older mappings keep their hashes.
             (n.keeps.empty() ? "" : ";keep=" + keeps_text(keeps_by_tensor(n.keeps), ",")) + ")";
    }
    case MappingNodeKind::op:
      return "op(" + n.compute + ";stage=" + n.stage +
             ";f=" + factors_text(by_dim(n.op_factors), ",") +
             // Only when written, so that the hashes of mappings without it stay what they were.
             (n.op_warps.empty() ? "" : ";w=" + factors_text(by_dim(n.op_warps), ",")) +
             (n.keeps.empty() ? "" : ";keep=" + keeps_text(keeps_by_tensor(n.keeps), ",")) + ")";
    case MappingNodeKind::scope:
      return "scope(" + std::string(to_string(n.scope)) + ")";
    case MappingNodeKind::trans:
      return "trans(" + n.tensor + ";to=" + n.target + ")";
  }
  return {};
}

void canonical(const MappingNode& n, int depth, std::string& out) {
  out += std::to_string(depth) + ":" + canonical_line(n) + "\n";
  for (const auto& c : n.children) canonical(c, depth + 1, out);
}

}  // namespace

std::string_view to_string(ScopeKind kind) {
  switch (kind) {
    case ScopeKind::sequential:
      return "sequential";
    case ScopeKind::parallel:
      return "parallel";
    case ScopeKind::pipeline:
      return "pipeline";
    case ScopeKind::sharing:
      return "sharing";
  }
  return "sequential";
}

std::string_view to_string(KeepChoice choice) {
  switch (choice) {
    case KeepChoice::inferred:
      return "inferred";
    case KeepChoice::keep:
      return "true";
    case KeepChoice::refetch:
      return "false";
    case KeepChoice::free:
      return "?";
  }
  return "inferred";
}

bool Mapping::has_free_factors() const { return has_free(root); }

std::string render_tree(const Mapping& mapping) {
  std::string out;
  render(mapping.root, 0, out);
  return out;
}

std::string canonical_text(const Mapping& mapping) {
  std::string out = "tilescope-mapping-1\n";
  canonical(mapping.root, 0, out);
  return out;
}

}  // namespace ts
