#include "mapper/ComputeFloor.hpp"

#include <algorithm>

namespace ts {

ComputeFloor::ComputeFloor(const MappingProgram& tmpl) : ndims_(tmpl.ndims) {
  int op = -1;
  for (size_t i = 0; i < tmpl.nodes.size(); ++i)
    if (tmpl.nodes[i].kind == MappingNodeKind::op) {
      op = static_cast<int>(i);
      break;
    }
  if (op < 0 || !tmpl.op) return;
  const ProgramNode& node = tmpl.nodes[static_cast<size_t>(op)];
  const Stage& stage = tmpl.op->stages[static_cast<size_t>(node.stage)];
  ops_ = tmpl.op->stage_points(stage) * stage.ops_per_point;
  ops_per_s_ = node.capability->ops_per_cycle * tmpl.graph->node(node.compute).clock_hz;
  // Walk up from the op: the child on the path says how many instances the tile above spreads
  // its spatial loop over.
  for (int child = op, up = node.parent; up >= 0;
       child = up, up = tmpl.nodes[static_cast<size_t>(up)].parent) {
    if (tmpl.nodes[static_cast<size_t>(up)].kind != MappingNodeKind::tile) continue;
    const ProgramNode& below = tmpl.nodes[static_cast<size_t>(child)];
    // Under dynamic dispatch the parts of every iteration above share one pool (docs/analysis.md):
    // parts of different iterations run at once, so only the instances bound them.
    tiles_.push_back(below.spread_dynamic ? -1 : up);
    spread_.push_back(std::max<int64_t>(1, below.spread_instances));
  }
}

double ComputeFloor::seconds(const MappingProgram& program) const {
  if (ops_per_s_ <= 0) return 0;
  double busy = 1;
  for (size_t k = 0; k < tiles_.size(); ++k) {
    double parts = static_cast<double>(spread_[k]);
    if (tiles_[k] >= 0) {
      const ProgramNode& tile = program.nodes[static_cast<size_t>(tiles_[k])];
      parts = 1;
      for (int d = 0; d < ndims_; ++d) parts *= static_cast<double>(tile.spatial[d].full);
    }
    busy *= std::min(parts, static_cast<double>(spread_[k]));
  }
  return ops_ / (busy * ops_per_s_);
}

}  // namespace ts
