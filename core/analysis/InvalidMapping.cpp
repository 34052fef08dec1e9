// Turns an invalid evaluation into an error at the mapping node at fault, saying what was
// expected: the analysis itself only records what failed, so that the mapper stays cheap.
#include <fmt/format.h>

#include "analysis/TileAnalysis.hpp"
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

void throw_if_invalid(const MappingProgram& p, const Evaluation& e) {
  if (e.valid()) return;
  const ProgramNode& node = p.nodes[static_cast<size_t>(std::max(0, e.failure_node))];
  SourceLocation where = node.where;
  if (where.file.empty()) where.file = p.mapping_file;
  switch (e.failure) {
    case EvaluationFailure::coverage: {
      const int d = e.failure_dim;
      const auto& dim = p.op->dims[static_cast<size_t>(d)];
      const std::string covered = e.failure_extent > 0
                                      ? fmt::format("about {:.3g}", e.failure_extent)
                                      : fmt::format("{}", e.nodes[0].ext_tail[d]);
      throw InputError(
          where, fmt::format("factors for dimension {} ({}) cover {} but operator '{}' "
                             "has {}={}; the factors along the tree must multiply to "
                             "the size, tails included",
                             dim.name, dim_chain(p, d), covered, p.op->name, dim.name, dim.size));
    }
    case EvaluationFailure::scope_mismatch: {
      const auto& dim = p.op->dims[static_cast<size_t>(e.failure_dim)];
      throw InputError(where, fmt::format("the children of this node cover different extents of "
                                          "dimension {}; siblings must cover the same tile",
                                          dim.name));
    }
    case EvaluationFailure::overflow: {
      const ArchNode& mem = p.graph->node(e.failure_memory);
      std::string parts;
      const NodeScratch& s = e.nodes[static_cast<size_t>(e.failure_node)];
      for (int t = 0; t < p.ntensors; ++t)
        if (node.buffer[t] == e.failure_memory) {
          double bytes = p.element_bytes[t];
          for (int d = 0; d < p.ndims; ++d)
            if ((p.tensor_dims[t] >> d) & 1u) bytes *= static_cast<double>(s.ext_full[d]);
          parts += fmt::format("{}{} {}{}", parts.empty() ? "" : ", ", p.op->tensors[t].name,
                               format_bytes(bytes), node.double_buffer ? " x2" : "");
        }
      throw InputError(where,
                       fmt::format("tile does not fit: buffers in {} need {} per instance ({}) "
                                   "but {} holds {}",
                                   mem.name, format_bytes(e.failure_bytes), parts, mem.name,
                                   format_bytes(mem.capacity_bytes)));
    }
    case EvaluationFailure::none:
      break;
  }
}

}  // namespace ts
