#include "training/GroupCollective.hpp"

#include <algorithm>

namespace ts {

GroupLinks group_links(TaskGraph& g, const Cluster& c, const GroupPlacement& group) {
  GroupLinks links;
  // A node holds devices_per_node / stride consecutive ranks (at least one, at most all); a
  // group that would leave a node part-filled is run as one rank per node.
  links.per_node =
      std::clamp<int64_t>(c.devices_per_node / std::max<int64_t>(group.stride, 1), 1, group.ranks);
  if (group.ranks % links.per_node != 0) links.per_node = 1;
  for (int64_t r = 0; r < group.ranks; ++r) {
    links.intra.push_back(
        {g.add_stream(), c.intra_node.bandwidth_bytes_per_s, c.intra_node.latency_s});
    links.nic.push_back({g.add_stream(), c.nic_share_bytes_per_s(), c.nic.latency_s,
                         c.node_of_gpu(group.first_gpu + r * group.stride)});
  }
  return links;
}

NcclChoice group_nccl_choice(CollectiveKind kind, const GroupLinks& links, double bytes) {
  const auto ranks = static_cast<int64_t>(links.intra.size());
  if (ranks <= 1) return {};
  const int64_t per_node = std::clamp<int64_t>(links.per_node, 1, ranks);
  return nccl_collective(kind, ranks, ranks / per_node, bytes, links.intra[0].bandwidth_bytes_per_s,
                         links.nic[0].bandwidth_bytes_per_s * static_cast<double>(per_node));
}

std::vector<int> add_group_collective(TaskGraph& g, CollectiveKind kind, const GroupLinks& links,
                                      double bytes, const std::vector<int>& after,
                                      NetworkRoutes& network) {
  const auto ranks = static_cast<int64_t>(links.intra.size());
  const CollectiveTiming timing = nccl_timing(group_nccl_choice(kind, links, bytes));
  if (links.per_node == ranks)
    return add_collective(g, kind, links.intra, bytes, after, nullptr, timing);
  if (links.per_node == 1 || kind == CollectiveKind::all_to_all)
    return add_collective(g, kind, links.nic, bytes, after, &network, timing);
  return add_hierarchical_collective(g, kind, links.intra, links.nic, links.per_node, bytes, after,
                                     &network, timing);
}

double group_collective_s(CollectiveKind kind, const Cluster& c, const GroupPlacement& group,
                          double bytes, int64_t copies) {
  if (group.ranks <= 1 || bytes <= 0) return 0;
  TaskGraph g;
  NetworkRoutes network(c, g, copies, c.nic_share_bytes_per_s());
  const GroupLinks links = group_links(g, c, group);
  add_group_collective(g, kind, links, bytes,
                       std::vector<int>(static_cast<size_t>(group.ranks), -1), network);
  return run_task_graph(g).makespan_s;
}

}  // namespace ts
