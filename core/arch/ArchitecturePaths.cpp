// Path queries over the graph: the route a tensor takes between two memories, and the
// alternatives a mapper may weigh against it.
#include <deque>
#include <limits>

#include "arch/ArchitectureGraph.hpp"

namespace ts {
namespace {

constexpr int unreachable = std::numeric_limits<int>::max();

// Hops from every node to `to`, following edges forwards (a BFS over the reversed edges).
std::vector<int> hops_to(const ArchitectureGraph& g, int to) {
  std::vector<std::vector<int>> in(g.nodes.size());
  for (const ArchEdge& e : g.edges) in[static_cast<size_t>(e.to)].push_back(e.from);
  std::vector<int> dist(g.nodes.size(), unreachable);
  std::deque<int> queue{to};
  dist[static_cast<size_t>(to)] = 0;
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    for (int u : in[static_cast<size_t>(v)])
      if (dist[static_cast<size_t>(u)] == unreachable) {
        dist[static_cast<size_t>(u)] = dist[static_cast<size_t>(v)] + 1;
        queue.push_back(u);
      }
  }
  return dist;
}

// Simple paths of exactly `left` more hops from `at` to `to`, in edge order. The distances
// prune every branch that cannot arrive in time, so the search stays small on real chips.
struct PathSearch {
  const ArchitectureGraph& g;
  int to;
  const std::vector<int>& dist;
  size_t max_paths;
  std::vector<std::vector<int>>& found;
  std::vector<int> path;
  std::vector<bool> visited;

  void extend(int at, int left) {
    if (found.size() >= max_paths) return;
    if (left == 0) {
      if (at == to) found.push_back(path);
      return;
    }
    for (int e : g.out_edges(at)) {
      int next = g.edge(e).to;
      if (visited[static_cast<size_t>(next)] || dist[static_cast<size_t>(next)] > left - 1)
        continue;
      if (next == to && left != 1) continue;  // a simple path ends where it reaches `to`
      visited[static_cast<size_t>(next)] = true;
      path.push_back(e);
      extend(next, left - 1);
      path.pop_back();
      visited[static_cast<size_t>(next)] = false;
    }
  }
};

}  // namespace

std::vector<int> ArchitectureGraph::shortest_path(int from, int to) const {
  if (from == to) return {};
  std::vector<int> via(nodes.size(), -1);  // edge that first reached each node
  std::deque<int> queue{from};
  while (!queue.empty()) {
    int v = queue.front();
    queue.pop_front();
    for (int e : out_edges(v)) {
      int next = edge(e).to;
      if (next == from || via[static_cast<size_t>(next)] >= 0) continue;
      via[static_cast<size_t>(next)] = e;
      if (next == to) {
        std::vector<int> path;
        for (int at = to; at != from; at = edge(via[static_cast<size_t>(at)]).from)
          path.insert(path.begin(), via[static_cast<size_t>(at)]);
        return path;
      }
      queue.push_back(next);
    }
  }
  return {};
}

std::vector<std::vector<int>> ArchitectureGraph::paths(int from, int to, size_t max_paths) const {
  std::vector<std::vector<int>> found;
  if (from == to || max_paths == 0) return found;
  std::vector<int> dist = hops_to(*this, to);
  if (dist[static_cast<size_t>(from)] == unreachable) return found;
  PathSearch search{*this, to, dist, max_paths, found, {}, std::vector<bool>(nodes.size())};
  search.visited[static_cast<size_t>(from)] = true;
  // Deepening one hop at a time yields the shortest paths first.
  for (int hops = dist[static_cast<size_t>(from)];
       hops < static_cast<int>(nodes.size()) && found.size() < max_paths; ++hops)
    search.extend(from, hops);
  return found;
}

}  // namespace ts
