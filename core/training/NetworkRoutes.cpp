#include "training/NetworkRoutes.hpp"

#include <algorithm>

namespace ts {

std::vector<int> NetworkRoutes::between(int64_t a, int64_t b) {
  std::vector<int> links;
  if (a < 0 || b < 0 || a == b) return links;
  for (size_t l = 0; l < cluster_->switch_levels.size(); ++l) {
    const int64_t size = cluster_->switch_levels[l].nodes;
    if (a / size == b / size) break;  // the same group here, and so at every level above
    links.push_back(link(l, a / size, true));
    links.push_back(link(l, b / size, false));
  }
  return links;
}

int NetworkRoutes::link(size_t level, int64_t group, bool up) {
  const auto key = std::make_tuple(level, group, up);
  if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
  const SwitchLevel& s = cluster_->switch_levels[level];
  // The group's NICs over the level's oversubscription, in flows of the messages' rate. A last
  // group that the cluster does not fill holds fewer nodes.
  const int64_t nodes = std::min(s.nodes, cluster_->nodes - group * s.nodes);
  const double flows = static_cast<double>(nodes * cluster_->nics_per_node) * nics_per_flow_ /
                       (s.oversubscription * static_cast<double>(copies_));
  const int id = graph_->add_link(flows);
  ids_.emplace(key, id);
  return id;
}

}  // namespace ts
