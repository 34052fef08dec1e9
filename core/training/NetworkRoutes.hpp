#pragma once
// The network above the NICs as links of the executor: per switch level and group of nodes, one
// link up and one down, each carrying the group's NIC bandwidth over the level's
// oversubscription. A message between two nodes climbs, at every level where they sit in
// different groups, its source group's uplink and descends its destination group's downlink, so
// that the flows that meet there share it max-min fairly (TaskGraph).
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "training/Cluster.hpp"
#include "training/TaskGraph.hpp"

namespace ts {

class NetworkRoutes {
 public:
  // Links are added to `graph` the first time a message uses them; their capacity counts flows
  // at `flow_bytes_per_s` (0: one NIC's rate), the full rate of the messages that cross them.
  // Where the graph holds one of `copies` identical collectives that run at once on other NICs
  // (the tensor-parallel ranks' rings, left out by symmetry), each flow stands for `copies` and
  // a link's capacity is shared among them.
  NetworkRoutes(const Cluster& cluster, TaskGraph& graph, int64_t copies = 1,
                double flow_bytes_per_s = 0)
      : cluster_(&cluster),
        graph_(&graph),
        copies_(copies < 1 ? 1 : copies),
        nics_per_flow_(flow_bytes_per_s > 0 ? cluster.nic.bandwidth_bytes_per_s / flow_bytes_per_s
                                            : 1.0) {}

  // The shared links a message from node `a` to node `b` crosses (none inside one group, or
  // for a cluster without switch levels).
  std::vector<int> between(int64_t a, int64_t b);

 private:
  int link(size_t level, int64_t group, bool up);

  const Cluster* cluster_;
  TaskGraph* graph_;
  int64_t copies_;
  double nics_per_flow_;  // a NIC's rate in flows
  std::map<std::tuple<size_t, int64_t, bool>, int> ids_;
};

}  // namespace ts
