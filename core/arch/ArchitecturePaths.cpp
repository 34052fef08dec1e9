// Path queries over the graph: the route a tensor takes between two memories, and the
// alternatives a mapper may weigh against it.
#include <deque>
#include <limits>

#include "arch/ArchitectureGraph.hpp"

namespace ts {
namespace {

constexpr int unreachable = std::numeric_limits<int>::max();

// Hops from every node to `to`, following edges forwards (a BFS over the reversed edges).
// Indexed by NodeId::index().
std::vector<int> hops_to(const ArchitectureGraph& g, NodeId to) {
  std::vector<std::vector<NodeId>> in(g.nodes.size());
  for (const ArchEdge& e : g.edges) in[e.to.index()].push_back(e.from);
  std::vector<int> dist(g.nodes.size(), unreachable);
  std::deque<NodeId> queue{to};
  dist[to.index()] = 0;
  while (!queue.empty()) {
    NodeId v = queue.front();
    queue.pop_front();
    for (NodeId u : in[v.index()])
      if (dist[u.index()] == unreachable) {
        dist[u.index()] = dist[v.index()] + 1;
        queue.push_back(u);
      }
  }
  return dist;
}

// Simple paths of exactly `left` more hops from `at` to `to`, in edge order. The distances
// prune every branch that cannot arrive in time, so the search stays small on real chips.
struct PathSearch {
  const ArchitectureGraph& g;
  NodeId to;
  const std::vector<int>& dist;
  size_t max_paths;
  std::vector<std::vector<EdgeId>>& found;
  std::vector<EdgeId> path;
  std::vector<bool> visited;

  void extend(NodeId at, int left) {
    if (found.size() >= max_paths) return;
    if (left == 0) {
      if (at == to) found.push_back(path);
      return;
    }
    for (EdgeId e : g.out_edges(at)) {
      NodeId next = g.edge(e).to;
      if (visited[next.index()] || dist[next.index()] > left - 1) continue;
      if (next == to && left != 1) continue;  // a simple path ends where it reaches `to`
      visited[next.index()] = true;
      path.push_back(e);
      extend(next, left - 1);
      path.pop_back();
      visited[next.index()] = false;
    }
  }
};

}  // namespace

std::vector<EdgeId> ArchitectureGraph::shortest_path(NodeId from, NodeId to) const {
  if (from == to) return {};
  std::vector<EdgeId> via(nodes.size());  // edge that first reached each node
  std::deque<NodeId> queue{from};
  while (!queue.empty()) {
    NodeId v = queue.front();
    queue.pop_front();
    for (EdgeId e : out_edges(v)) {
      NodeId next = edge(e).to;
      if (next == from || via[next.index()].valid()) continue;
      via[next.index()] = e;
      if (next == to) {
        std::vector<EdgeId> path;
        for (NodeId at = to; at != from; at = edge(via[at.index()]).from)
          path.insert(path.begin(), via[at.index()]);
        return path;
      }
      queue.push_back(next);
    }
  }
  return {};
}

std::vector<std::vector<EdgeId>> ArchitectureGraph::paths(NodeId from, NodeId to,
                                                          size_t max_paths) const {
  std::vector<std::vector<EdgeId>> found;
  if (from == to || max_paths == 0) return found;
  std::vector<int> dist = hops_to(*this, to);
  if (dist[from.index()] == unreachable) return found;
  PathSearch search{*this, to, dist, max_paths, found, {}, std::vector<bool>(nodes.size())};
  search.visited[from.index()] = true;
  // Deepening one hop at a time yields the shortest paths first.
  for (int hops = dist[from.index()];
       hops < static_cast<int>(nodes.size()) && found.size() < max_paths; ++hops)
    search.extend(from, hops);
  return found;
}

}  // namespace ts
