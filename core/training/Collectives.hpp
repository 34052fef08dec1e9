#pragma once
// Collectives as steps on links, for the task-graph executor: ring reduce-scatter, all-gather
// and all-reduce, and direct all-to-all, the algorithms NCCL uses within a ring of n ranks; and
// point-to-point messages in the alpha-beta model (serialisation once, latency per hop).
#include <cstdint>
#include <vector>

#include "training/TaskGraph.hpp"

namespace ts {

enum class CollectiveKind { all_reduce, reduce_scatter, all_gather, all_to_all };

// A link as the collectives use it: the stream its transfers queue on, its bandwidth and its
// latency per transfer.
struct Link {
  int stream = 0;
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;
  int64_t node = -1;  // the node the rank sits on, for the switches above the NICs (-1: none)
};

class NetworkRoutes;

// How the executor charges a collective's steps. By default (the link model) every step pays
// its link's latency and runs at its link's rate. NCCL's model (NcclTuning.hpp, nccl_timing)
// instead runs every step at `bandwidth_share` of its link's rate, the share of the link that the
// protocol NCCL picks reaches (1 for ring/Simple), with no latency per step, and charges NCCL's
// latency for the algorithm and protocol once: `latency_s` on each rank's stream before its
// first step.
struct CollectiveTiming {
  bool link_latency_per_step = true;
  double bandwidth_share = 1;
  double latency_s = 0;
};

// nccl-tests' bus bandwidth factor: bus bandwidth = (bytes / time) x this, for n ranks.
double bus_bandwidth_factor(CollectiveKind kind, int64_t n);

// Adds a collective over `bytes` (the whole buffer, as nccl-tests counts it) among the ranks of a
// ring; `links[r]` carries rank r's sends to rank r + 1 (mod n). Each rank's first step waits
// for `after[r]` (a task id, or -1). Returns, per rank, the task after which the collective is
// complete there. With `network`, a send between ranks on different nodes also crosses the
// switch links between them, shared with every other flow there. `timing`: how the steps are
// charged (CollectiveTiming).
std::vector<int> add_collective(TaskGraph& graph, CollectiveKind kind,
                                const std::vector<Link>& links, double bytes,
                                const std::vector<int>& after, NetworkRoutes* network = nullptr,
                                const CollectiveTiming& timing = {});

// A collective over `nodes` x `per_node` ranks (rank = node x per_node + local) in two levels,
// each link carrying only its own level's steps: inside each node on `intra` links (NVLink),
// across nodes among the ranks with the same local index on `inter` links (one ring per local
// index, each on its share of the node's NICs). NCCL's hierarchical all-reduce: reduce-scatter
// in the node, all-reduce of the node's 1/per_node share across nodes, all-gather in the node.
// A reduce-scatter: in the node, then of the 1/per_node share across nodes; an all-gather:
// across nodes (each rank gathers its local index's 1/per_node share), then in the node. `intra`
// and `inter` hold a link per rank. Returns, per rank, the task after which it is complete.
// `network` as for add_collective, for the rings across nodes. Not for all-to-all. `timing`
// holds for every phase's steps, its latency (one collective's, as NCCL runs it) charged once,
// before the first phase.
std::vector<int> add_hierarchical_collective(TaskGraph& graph, CollectiveKind kind,
                                             const std::vector<Link>& intra,
                                             const std::vector<Link>& inter, int64_t per_node,
                                             double bytes, const std::vector<int>& after,
                                             NetworkRoutes* network = nullptr,
                                             const CollectiveTiming& timing = {});

// A message of `bytes` over a path of `hops` links of `bandwidth` and `hop_latency_s` each, cut
// through: serialised once at the slowest link, then the latency of every hop.
double point_to_point_s(double bytes, double bandwidth_bytes_per_s, int hops, double hop_latency_s);

}  // namespace ts
