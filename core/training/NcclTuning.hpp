#pragma once
// NCCL's latency-bandwidth model of a collective, as NCCL itself tunes it (NCCL 2.10,
// src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime): for every algorithm (ring,
// and tree for all-reduce) and protocol (LL, LL128, Simple) a latency and a bandwidth, and the
// time of a collective of `bytes` as latency + bytes / bandwidth; NCCL runs the pair with the
// least time. Figures: shared/validation/communication.md, "NCCL's own latency model".
//
// What the cluster file gives in place of NCCL's topology search: the bus bandwidth, from
// intra_node.bandwidth (achieved nccl-tests bus bandwidth per GPU) inside a node and the NICs
// between nodes (the caller passes what the group's ranks on a node hold of the node's NICs).
// NCCL computes its bus bandwidth as channels x per-channel speed; with no channel count in the
// cluster file, the refinements that cap a protocol per channel (LL128's 20 GB/s a channel, the
// tree's perChMaxTreeBw) are left out, and so are ncclTopoGetAlgoTime's tree correction factors
// by size and the channel count chosen per call.
//
// Sources: the latencies are communication.md's. The bandwidth refinements are tuning.cc's as
// recalled, with no copy of the source at hand to check them against: ring/LL min(llMaxBw,
// busBw/4) for all-reduce or across nodes, else busBw/3, llMaxBw 87.7 GB/s for sm80 on one
// node, 22.5 on two, 19.0 on more; ring/LL128 busBw x 0.92 (x 0.7 with one rank per node); tree
// busBw x 0.92, tree/LL x 1/3.8 (at most llMaxBw), tree/LL128 x 7/9 on one node, 120/128 across
// nodes; LL128 enabled (NCCL enables it on NVLink for sm70 and sm80). The tree is a candidate on
// one node too (an intra-node chain): as recalled, 2.10 disables only CollNet by node count. If
// it did not run the tree there, 1 MiB on 8 GPUs would be ring/LL (42.1 us) instead of tree/LL128
// (34.6 us; tests/unit/test_nccl_tuning.cpp). NCCL_ALGO / NCCL_PROTO overrides are not modelled.
#include <cstdint>
#include <string>
#include <vector>

#include "training/Collectives.hpp"

namespace ts {

enum class NcclAlgorithm { tree, ring };
enum class NcclProtocol { ll, ll128, simple };

struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  double latency_s = 0;
  double bus_bytes_per_s = 0;        // after the protocol's refinement
  double algorithm_bytes_per_s = 0;  // the bus bandwidth x n / nsteps (ring) or x 0.5 (tree)
  double time_s = 0;                 // latency_s + bytes / algorithm_bytes_per_s
  // algorithm_bytes_per_s over the ring/Simple algorithm bandwidth at the same bus bandwidth:
  // the share of its links' rates at which the executor's ring steps run this choice
  // (1 for ring/Simple, 0.92 for ring/LL128 on NVLink, ...).
  double ring_bandwidth_share = 1;
};

const char* nccl_algorithm_name(NcclAlgorithm algorithm);  // "ring", "tree"
const char* nccl_protocol_name(NcclProtocol protocol);     // "LL", "LL128", "Simple"
std::string nccl_choice_name(const NcclChoice& choice);    // "ring/LL"

// Every (algorithm, protocol) NCCL considers for the collective, in tuning.cc's order (tree
// before ring, LL, LL128, Simple). `ranks` over `nodes` (whole nodes: ranks / nodes on each);
// `bytes` the whole buffer as nccl-tests counts it; `intra_bus_bytes_per_s` the bus bandwidth
// inside a node, `inter_bus_bytes_per_s` between nodes (per rank of a node, as the ring crosses
// the node boundary). One node: the intra figure; one rank per node: the inter one; otherwise
// the ring's bottleneck, the lesser of the two. All-to-all is not one of tuning.cc's
// collectives (NCCL runs it as grouped sends): one candidate, the executor's direct exchange at
// the full bus bandwidth with ring/Simple's latency for n - 1 steps, nodes - 1 of them between
// nodes.
std::vector<NcclChoice> nccl_candidates(CollectiveKind kind, int64_t ranks, int64_t nodes,
                                        double bytes, double intra_bus_bytes_per_s,
                                        double inter_bus_bytes_per_s);

// The candidate with the least time, as NCCL picks (the first of equals). One rank, or no bytes:
// nothing to do (time 0).
NcclChoice nccl_collective(CollectiveKind kind, int64_t ranks, int64_t nodes, double bytes,
                           double intra_bus_bytes_per_s, double inter_bus_bytes_per_s);

// NCCL's choice for a flat ring on one kind of links, as add_collective runs it: the ranks' nodes
// from Link::node (all -1: one node), the bus bandwidth the slowest link's, and between nodes
// that times the ranks per node (NICs shared as Cluster::nic_share_bytes_per_s shares them).
NcclChoice nccl_ring_choice(CollectiveKind kind, const std::vector<Link>& links, double bytes);

// The executor's charge for a collective that NCCL runs as `choice`: its steps at the choice's
// share of their links' rates, its latency once.
CollectiveTiming nccl_timing(const NcclChoice& choice);

}  // namespace ts
