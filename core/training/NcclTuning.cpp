#include "training/NcclTuning.hpp"

#include <algorithm>
#include <set>

namespace ts {

namespace {

// NCCL 2.10 src/graph/tuning.cc (shared/validation/communication.md), in microseconds, indexed
// [algorithm: tree, ring][protocol: LL, LL128, Simple].
constexpr double kBaseLatencyUs[2][3] = {{4.4, 4.4, 0.0}, {3.6, 10.0, 8.4}};
// hwLat, per hop: NVLink (NCCL_HW_NVLINK) inside a node, the network (NCCL_HW_NET) between.
constexpr double kNvlinkHopUs[2][3] = {{0.52, 1.25, 28.0}, {0.47, 1.9, 3.4}};
constexpr double kNetworkHopUs[2][3] = {{5.0, 8.5, 28.0}, {2.7, 4.0, 9.6}};
// llMaxBws, GB/s, for Ampere (sm80) on one node and, between nodes, AMD hosts; indexed by 1, 2
// and more nodes. (The Volta row, and Intel hosts between nodes, read {39.0, 39.0, 20.4}; the
// cluster file names neither the host CPU nor NCCL's compute capability test, and its GPUs are
// A100s and H100s, so the Ampere row stands for all.)
constexpr double kLlMaxBusGBps[3] = {87.7, 22.5, 19.0};

// NCCL's log2i: the floor of log2 (0 for 1).
int64_t log2_floor(int64_t n) {
  int64_t l = 0;
  while (n > 1) {
    n >>= 1;
    ++l;
  }
  return l;
}

}  // namespace

const char* nccl_algorithm_name(NcclAlgorithm algorithm) {
  return algorithm == NcclAlgorithm::tree ? "tree" : "ring";
}

const char* nccl_protocol_name(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll:
      return "LL";
    case NcclProtocol::ll128:
      return "LL128";
    case NcclProtocol::simple:
      return "Simple";
  }
  return "?";
}

std::string nccl_choice_name(const NcclChoice& choice) {
  return std::string(nccl_algorithm_name(choice.algorithm)) + "/" +
         nccl_protocol_name(choice.protocol);
}

std::vector<NcclChoice> nccl_candidates(CollectiveKind kind, int64_t ranks, int64_t nodes,
                                        double bytes, double intra_bus_bytes_per_s,
                                        double inter_bus_bytes_per_s) {
  std::vector<NcclChoice> out;
  if (ranks <= 1) return out;
  nodes = std::clamp<int64_t>(nodes, 1, ranks);
  const int64_t per_node = ranks / nodes;  // tuning.cc: nRanks / nNodes, in integers
  const double bus = nodes == 1      ? intra_bus_bytes_per_s
                     : per_node == 1 ? inter_bus_bytes_per_s
                                     : std::min(intra_bus_bytes_per_s, inter_bus_bytes_per_s);
  const bool all_reduce = kind == CollectiveKind::all_reduce;
  const int64_t steps = all_reduce ? 2 * (ranks - 1) : ranks - 1;
  const int64_t inter_steps = all_reduce ? 2 * (nodes - 1) : nodes - 1;
  const double ring_ratio = static_cast<double>(ranks) / static_cast<double>(steps);
  const double ll_max = kLlMaxBusGBps[nodes <= 2 ? nodes - 1 : 2] * 1e9;
  // ppn < 2: a GPU sends and receives through the NIC itself (LL128's discount).
  const double ppn = static_cast<double>(ranks) / static_cast<double>(nodes);

  auto latency_s = [&](int a, int p) {
    double us = kBaseLatencyUs[a][p];
    if (a == 1)  // ring: its steps inside nodes at NVLink's hop, those between at the network's
      us += static_cast<double>(steps - inter_steps) * kNvlinkHopUs[a][p] +
            static_cast<double>(inter_steps) * kNetworkHopUs[a][p];
    else  // tree: up and down a chain in the node and a binary tree across nodes
      us += 2 * (static_cast<double>(per_node - 1) * kNvlinkHopUs[a][p] +
                 static_cast<double>(log2_floor(nodes)) * kNetworkHopUs[a][p]);
    return us * 1e-6;
  };
  const double ring_simple_algorithm = bus * ring_ratio;

  if (kind == CollectiveKind::all_to_all) {
    // Not tuned by tuning.cc (grouped point-to-point sends); the executor's direct exchange at the
    // links' full rate, with ring/Simple's latency over its n - 1 steps.
    NcclChoice c;
    c.algorithm = NcclAlgorithm::ring;
    c.protocol = NcclProtocol::simple;
    c.latency_s = latency_s(1, 2);
    c.bus_bytes_per_s = bus;
    c.algorithm_bytes_per_s = ring_simple_algorithm;
    c.time_s = c.latency_s + bytes / c.algorithm_bytes_per_s;
    c.ring_bandwidth_share = 1;
    out.push_back(c);
    return out;
  }

  for (int a = 0; a < 2; ++a) {
    if (a == 0 && !all_reduce) continue;  // tree: all-reduce only
    for (int p = 0; p < 3; ++p) {
      double b = bus;
      // tuning.cc's refinements, the per-channel caps left out (NcclTuning.hpp)
      if (a == 1 && p == 0)  // ring/LL: a quarter (all-reduce or between nodes), else a third
        b = std::min(ll_max, b * ((nodes > 1 || all_reduce) ? 1.0 / 4.0 : 1.0 / 3.0));
      if (a == 1 && p == 1)  // ring/LL128 (capped at 20 GB/s a channel: left out)
        b *= ppn < 2 ? 0.7 : 0.92;
      if (a == 0) b *= 0.92;  // tree (capped at perChMaxTreeBw a channel: left out)
      if (a == 0 && p == 0) b = std::min(b * 1.0 / 3.8, ll_max);
      if (a == 0 && p == 1) b *= nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
      NcclChoice c;
      c.algorithm = a == 0 ? NcclAlgorithm::tree : NcclAlgorithm::ring;
      c.protocol = static_cast<NcclProtocol>(p);
      c.latency_s = latency_s(a, p);
      c.bus_bytes_per_s = b;
      c.algorithm_bytes_per_s = b * (a == 0 ? 0.5 : ring_ratio);
      c.time_s = c.latency_s + bytes / c.algorithm_bytes_per_s;
      c.ring_bandwidth_share =
          ring_simple_algorithm > 0 ? c.algorithm_bytes_per_s / ring_simple_algorithm : 1.0;
      out.push_back(c);
    }
  }
  return out;
}

NcclChoice nccl_collective(CollectiveKind kind, int64_t ranks, int64_t nodes, double bytes,
                           double intra_bus_bytes_per_s, double inter_bus_bytes_per_s) {
  if (ranks <= 1 || bytes <= 0) return {};
  const std::vector<NcclChoice> all =
      nccl_candidates(kind, ranks, nodes, bytes, intra_bus_bytes_per_s, inter_bus_bytes_per_s);
  return *std::min_element(all.begin(), all.end(), [](const NcclChoice& x, const NcclChoice& y) {
    return x.time_s < y.time_s;
  });
}

NcclChoice nccl_ring_choice(CollectiveKind kind, const std::vector<Link>& links, double bytes) {
  const auto ranks = static_cast<int64_t>(links.size());
  if (ranks <= 1) return {};
  std::set<int64_t> nodes;
  double slowest = links.front().bandwidth_bytes_per_s;
  for (const Link& l : links) {
    nodes.insert(l.node);
    slowest = std::min(slowest, l.bandwidth_bytes_per_s);
  }
  const auto node_count = static_cast<int64_t>(nodes.size());
  const double per_node = static_cast<double>(ranks) / static_cast<double>(node_count);
  return nccl_collective(kind, ranks, node_count, bytes, slowest, slowest * per_node);
}

CollectiveTiming nccl_timing(const NcclChoice& choice) {
  CollectiveTiming t;
  t.link_latency_per_step = false;
  t.bandwidth_share = choice.ring_bandwidth_share;
  t.latency_s = choice.latency_s;
  return t;
}

}  // namespace ts
