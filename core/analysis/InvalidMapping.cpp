// Turns an invalid evaluation into an error at the mapping node at fault, saying what was
// expected: the analysis itself only records what failed, so that the mapper stays cheap.
#include <fmt/format.h>

#include "analysis/AnalysisResult.hpp"
#include "common/ByteFormat.hpp"

namespace ts {
namespace {

std::string dim_chain(const MappingProgram& p, int d) {
  std::string text;
  for (const auto& node : p.nodes) {
    std::vector<std::string> parts;
    if (node.kind == MappingNodeKind::tile) {
      if (node.temporal[d].full != 1 || node.temporal[d].has_tail())
        parts.push_back(factor_text(node.temporal[d]));
      if (node.spatial[d].full != 1 || node.spatial[d].has_tail())
        parts.push_back(factor_text(node.spatial[d]));
    } else if (node.kind == MappingNodeKind::op) {
      if (node.op_factor[d].full != 1 || node.op_factor[d].has_tail())
        parts.push_back(factor_text(node.op_factor[d]));
    }
    for (auto& part : parts) text += (text.empty() ? "" : " x ") + part;
  }
  return text.empty() ? "1" : text;
}

}  // namespace

void throw_if_invalid(const MappingProgram& p, const AnalysisResult& r) {
  if (r.valid()) return;
  const MappingFailure& f = r.failure;
  const ProgramNode& node = p.nodes[static_cast<size_t>(std::max(0, f.node))];
  SourceLocation where = node.where;
  if (where.file.empty()) where.file = p.mapping_file;
  switch (f.kind) {
    case EvaluationFailure::coverage: {
      const auto& dim = p.op->dims[static_cast<size_t>(f.dim)];
      const std::string covered = f.extent > static_cast<double>(kLargestDimensionSize)
                                      ? fmt::format("about {:.3g}", f.extent)
                                      : fmt::format("{:.0f}", f.extent);
      throw InputError(
          where,
          fmt::format("factors for dimension {} ({}) cover {} but operator '{}' "
                      "has {}={}; the factors along the tree must multiply to "
                      "the size, tails included",
                      dim.name, dim_chain(p, f.dim), covered, p.op->name, dim.name, dim.size));
    }
    case EvaluationFailure::scope_mismatch: {
      const auto& dim = p.op->dims[static_cast<size_t>(f.dim)];
      throw InputError(where, fmt::format("the children of this node cover different extents of "
                                          "dimension {}; siblings must cover the same tile",
                                          dim.name));
    }
    case EvaluationFailure::overflow: {
      const ArchNode& mem = p.graph->node(f.memory);
      // The node's buffers in the memory, in the bytes the check counted (AnalysisResult).
      std::string parts;
      for (const TileBuffer& b : r.nodes[static_cast<size_t>(std::max(0, f.node))].buffers)
        if (b.memory == f.memory)
          parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", p.op->tensors[b.tensor].name,
                               format_bytes(b.bytes));
      if (node.double_buffer) parts += ", double-buffered";
      throw InputError(where,
                       fmt::format("tile does not fit: buffers in {} need {} per instance ({}) "
                                   "but {} holds {}",
                                   mem.name, format_bytes(f.bytes), parts, mem.name,
                                   format_bytes(mem.capacity_bytes)));
    }
    case EvaluationFailure::none:
      break;
  }
}

}  // namespace ts
