#include "training/Collectives.hpp"

#include <stdexcept>
#include <string>

#include "training/NetworkRoutes.hpp"

namespace ts {

double bus_bandwidth_factor(CollectiveKind kind, int64_t n) {
  const double r = static_cast<double>(n);
  switch (kind) {
    case CollectiveKind::all_reduce:
      return 2 * (r - 1) / r;
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::all_gather:
    case CollectiveKind::all_to_all:
      return (r - 1) / r;
  }
  return 1;
}

namespace {

std::string kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_reduce:
      return "all-reduce";
    case CollectiveKind::reduce_scatter:
      return "reduce-scatter";
    case CollectiveKind::all_gather:
      return "all-gather";
    case CollectiveKind::all_to_all:
      return "all-to-all";
  }
  return "collective";
}

}  // namespace

std::vector<int> add_collective(TaskGraph& g, CollectiveKind kind, const std::vector<Link>& links,
                                double bytes, const std::vector<int>& after, NetworkRoutes* network,
                                const CollectiveTiming& timing) {
  const auto n = static_cast<int64_t>(links.size());
  if (n < 1 || after.size() != links.size())
    throw std::invalid_argument("a collective needs one link and one predecessor per rank");
  if (!(timing.bandwidth_share > 0))
    throw std::invalid_argument("a collective's steps need a positive share of their links");
  std::vector<int> last(after.begin(), after.end());
  if (n == 1) return last;
  const double chunk = bytes / static_cast<double>(n);
  // NCCL's latency for the whole collective, once on each rank's stream before its first step.
  if (timing.latency_s > 0)
    for (int64_t r = 0; r < n; ++r) {
      Task t;
      t.stream = links[static_cast<size_t>(r)].stream;
      t.duration_s = timing.latency_s;
      if (last[static_cast<size_t>(r)] >= 0) t.after.push_back(last[static_cast<size_t>(r)]);
      t.label = kind_name(kind) + " latency rank " + std::to_string(r);
      last[static_cast<size_t>(r)] = g.add(std::move(t));
    }
  auto send = [&](int64_t r, int64_t to, double size, const std::vector<int>& wait,
                  const std::string& what) {
    const Link& l = links[static_cast<size_t>(r)];
    Task t;
    t.stream = l.stream;
    if (network) t.links = network->between(l.node, links[static_cast<size_t>(to)].node);
    t.duration_s = size / (l.bandwidth_bytes_per_s * timing.bandwidth_share) +
                   (timing.link_latency_per_step ? l.latency_s : 0.0);
    for (int w : wait)
      if (w >= 0) t.after.push_back(w);
    t.label = kind_name(kind) + " " + what + " rank " + std::to_string(r);
    return g.add(std::move(t));
  };
  if (kind == CollectiveKind::all_to_all) {
    // Each rank sends its n - 1 other chunks straight to their owners, one after another on its
    // own link; a rank is done when every chunk meant for it has arrived.
    std::vector<std::vector<int>> arrivals(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) {
      int prev = last[static_cast<size_t>(r)];
      for (int64_t k = 1; k < n; ++k) {
        prev = send(r, (r + k) % n, chunk, {prev}, "to " + std::to_string((r + k) % n));
        arrivals[static_cast<size_t>((r + k) % n)].push_back(prev);
      }
    }
    std::vector<int> done(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) {
      Task join;
      join.stream = links[static_cast<size_t>(r)].stream;
      join.after = arrivals[static_cast<size_t>(r)];
      join.label = "all-to-all done rank " + std::to_string(r);
      done[static_cast<size_t>(r)] = g.add(std::move(join));
    }
    return done;
  }
  // Ring: in each step every rank sends one chunk to its neighbour, and a rank's next send waits
  // for what it received in this step (it forwards, or reduces into, that chunk).
  const int64_t steps = kind == CollectiveKind::all_reduce ? 2 * (n - 1) : n - 1;
  for (int64_t step = 0; step < steps; ++step) {
    std::vector<int> sent(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r) {
      const int64_t from = (r + n - 1) % n;  // what rank r received last step came from here
      std::vector<int> wait{last[static_cast<size_t>(r)]};
      if (step > 0) wait.push_back(last[static_cast<size_t>(from)]);
      sent[static_cast<size_t>(r)] =
          send(r, (r + 1) % n, chunk, wait, "step " + std::to_string(step));
    }
    last = sent;
  }
  // Rank r is complete when its neighbour's last send (into r) has arrived.
  std::vector<int> done(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r)
    done[static_cast<size_t>(r)] = last[static_cast<size_t>((r + n - 1) % n)];
  return done;
}

std::vector<int> add_hierarchical_collective(TaskGraph& g, CollectiveKind kind,
                                             const std::vector<Link>& intra,
                                             const std::vector<Link>& inter, int64_t per_node,
                                             double bytes, const std::vector<int>& after,
                                             NetworkRoutes* network,
                                             const CollectiveTiming& timing) {
  const auto n = static_cast<int64_t>(intra.size());
  if (per_node < 1 || n % per_node != 0 || inter.size() != intra.size() ||
      after.size() != intra.size() || kind == CollectiveKind::all_to_all)
    throw std::invalid_argument(
        "a hierarchical collective needs whole nodes and two links and a predecessor per rank");
  const int64_t nodes = n / per_node;
  std::vector<int> done(after.begin(), after.end());
  // The whole collective's latency goes before the first phase; the later phases only its share.
  CollectiveTiming first_phase = timing, later_phases = timing;
  later_phases.latency_s = 0;
  bool first = true;
  // Runs one collective among the ranks `first, first + stride, ...` (count of them).
  auto among = [&](CollectiveKind phase, const std::vector<Link>& links, int64_t first_rank,
                   int64_t stride, int64_t count, double size, NetworkRoutes* routes,
                   const CollectiveTiming& phase_timing) {
    std::vector<Link> ring;
    std::vector<int> wait;
    for (int64_t k = 0; k < count; ++k) {
      ring.push_back(links[static_cast<size_t>(first_rank + k * stride)]);
      wait.push_back(done[static_cast<size_t>(first_rank + k * stride)]);
    }
    const std::vector<int> end = add_collective(g, phase, ring, size, wait, routes, phase_timing);
    for (int64_t k = 0; k < count; ++k)
      done[static_cast<size_t>(first_rank + k * stride)] = end[static_cast<size_t>(k)];
  };
  auto in_nodes = [&](CollectiveKind phase) {
    const CollectiveTiming& t = first ? first_phase : later_phases;
    for (int64_t node = 0; node < nodes; ++node)
      among(phase, intra, node * per_node, 1, per_node, bytes, nullptr, t);
    if (per_node > 1) first = false;  // a phase of one rank per ring charges nothing
  };
  auto across_nodes = [&](CollectiveKind phase) {
    const CollectiveTiming& t = first ? first_phase : later_phases;
    for (int64_t local = 0; local < per_node; ++local)
      among(phase, inter, local, per_node, nodes, bytes / static_cast<double>(per_node), network,
            t);
    if (nodes > 1) first = false;
  };
  switch (kind) {
    case CollectiveKind::all_reduce:
      in_nodes(CollectiveKind::reduce_scatter);
      across_nodes(CollectiveKind::all_reduce);
      in_nodes(CollectiveKind::all_gather);
      break;
    case CollectiveKind::reduce_scatter:
      in_nodes(CollectiveKind::reduce_scatter);
      across_nodes(CollectiveKind::reduce_scatter);
      break;
    case CollectiveKind::all_gather:
      across_nodes(CollectiveKind::all_gather);
      in_nodes(CollectiveKind::all_gather);
      break;
    case CollectiveKind::all_to_all:
      break;
  }
  return done;
}

double point_to_point_s(double bytes, double bandwidth_bytes_per_s, int hops,
                        double hop_latency_s) {
  return bytes / bandwidth_bytes_per_s + static_cast<double>(hops) * hop_latency_s;
}

}  // namespace ts
