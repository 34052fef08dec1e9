#pragma once
// A collective among the ranks of one parallel group, placed on the cluster as NCCL runs it:
// when the group sits inside one node, a ring on the NVLink links; when each node holds one of
// its ranks, a ring over the NICs; otherwise in two levels (add_hierarchical_collective), the
// node's part on NVLink and the part between nodes over the NICs. Every GPU of a node runs its
// own group's collective at once (the groups of a Megatron job are alike), so over the NICs a
// rank sends at its share of the node's NICs (Cluster::nic_share_bytes_per_s). Each collective
// is charged as NCCL tunes it (NcclTuning.hpp): the algorithm and protocol with the least time
// in NCCL's model, its latency once, its steps at the protocol's share of the links' rates.
#include <cstdint>
#include <vector>

#include "training/Cluster.hpp"
#include "training/Collectives.hpp"
#include "training/NcclTuning.hpp"
#include "training/NetworkRoutes.hpp"
#include "training/TaskGraph.hpp"

namespace ts {

// Where a group's ranks sit: rank r on GPU first_gpu + r x stride (Megatron's rank order:
// tensor-parallel ranks 1 apart, data-parallel ones tp apart).
struct GroupPlacement {
  int64_t ranks = 1;
  int64_t first_gpu = 0;
  int64_t stride = 1;
};

// A stream per rank and level: `intra` on the rank's NVLink, `nic` on its share of the NICs.
// `per_node`: the group's ranks on one node (== ranks: inside one node; 1: one per node).
struct GroupLinks {
  std::vector<Link> intra, nic;
  int64_t per_node = 1;
};

GroupLinks group_links(TaskGraph& graph, const Cluster& cluster, const GroupPlacement& group);

// NCCL's choice for the collective of `bytes` among the group: its ranks over
// ranks / per_node nodes, the bus bandwidth inside a node the NVLink rate, and between nodes what
// the group's ranks on a node hold of its NICs (per_node x Cluster::nic_share_bytes_per_s: NCCL
// spreads a ring's channels over the node's NICs, so a node's part of the ring crosses at their
// sum).
NcclChoice group_nccl_choice(CollectiveKind kind, const GroupLinks& links, double bytes);

// Adds the collective of `bytes` (nccl-tests' count) among the group, each rank starting after
// `after[r]`; returns, per rank, the task after which it is complete there. Sends between nodes
// cross the switch levels through `network`. Charged as NCCL runs it (group_nccl_choice,
// nccl_timing).
std::vector<int> add_group_collective(TaskGraph& graph, CollectiveKind kind,
                                      const GroupLinks& links, double bytes,
                                      const std::vector<int>& after, NetworkRoutes& network);

// The executor's time for the collective alone on its links, its switch links shared with
// `copies` identical collectives of other ranks (NetworkRoutes).
double group_collective_s(CollectiveKind kind, const Cluster& cluster, const GroupPlacement& group,
                          double bytes, int64_t copies);

}  // namespace ts
