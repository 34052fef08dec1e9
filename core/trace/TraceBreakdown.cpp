#include "trace/TraceBreakdown.hpp"

#include <algorithm>
#include <unordered_map>

namespace ts {
namespace {

// Each instant of the window, by which classes of work were running then.
struct ClassSweep {
  std::array<int64_t, 3> exclusive_ns{0, 0, 0};  // by priority: compute, communication, memory
  std::array<int64_t, 3> union_ns{0, 0, 0};
  int64_t idle_ns = 0;
  int64_t communication_under_compute_ns = 0;
};

ClassSweep sweep_classes(const RankTrace& rank, const TimeWindow& window) {
  struct Edge {
    int64_t time;
    int8_t delta;
    uint8_t time_class;
  };
  std::vector<Edge> edges;
  for (const GpuActivity& a : rank.gpu) {
    if (a.start_ns >= window.end_ns) break;  // gpu is in start order
    const int64_t begin = std::max(a.start_ns, window.begin_ns);
    const int64_t end = std::min(a.end_ns, window.end_ns);
    if (end <= begin) continue;
    const auto c = static_cast<uint8_t>(a.time_class);
    edges.push_back(Edge{begin, 1, c});
    edges.push_back(Edge{end, -1, c});
  }
  std::sort(edges.begin(), edges.end(),
            [](const Edge& a, const Edge& b) { return a.time < b.time; });
  ClassSweep out;
  std::array<int64_t, 3> running{0, 0, 0};
  int64_t at = window.begin_ns;
  auto account = [&](int64_t until) {
    const int64_t span = until - at;
    if (span <= 0) return;
    for (size_t c = 0; c < 3; ++c)
      if (running[c] > 0) out.union_ns[c] += span;
    if (running[0] > 0) {
      out.exclusive_ns[0] += span;
      if (running[1] > 0) out.communication_under_compute_ns += span;
    } else if (running[1] > 0) {
      out.exclusive_ns[1] += span;
    } else if (running[2] > 0) {
      out.exclusive_ns[2] += span;
    } else {
      out.idle_ns += span;
    }
  };
  for (const Edge& e : edges) {
    account(e.time);
    at = std::max(at, e.time);
    running[e.time_class] += e.delta;
  }
  account(window.end_ns);
  return out;
}

}  // namespace

TemporalBreakdown temporal_breakdown(const RankTrace& rank, const TimeWindow& window) {
  const ClassSweep s = sweep_classes(rank, window);
  TemporalBreakdown out;
  out.rank = rank.rank;
  out.window = window;
  out.compute_ns = s.exclusive_ns[0];
  out.communication_ns = s.exclusive_ns[1];
  out.memory_ns = s.exclusive_ns[2];
  out.idle_ns = s.idle_ns;
  return out;
}

CommunicationOverlap communication_overlap(const RankTrace& rank, const TimeWindow& window) {
  const ClassSweep s = sweep_classes(rank, window);
  CommunicationOverlap out;
  out.rank = rank.rank;
  out.communication_ns = s.union_ns[1];
  out.compute_ns = s.union_ns[0];
  out.overlapped_ns = s.communication_under_compute_ns;
  return out;
}

std::string operator_name_of(const RankTrace& rank, const GpuActivity& activity) {
  if (activity.op < 0) return "(no operator) " + rank.name_of(activity.name);
  const std::string& name = rank.name_of(rank.ops[static_cast<size_t>(activity.op)].name);
  if (name.rfind("ProfilerStep#", 0) == 0) return "ProfilerStep";
  return name;
}

KernelBreakdown kernel_breakdown(const RankTrace& rank, const TimeWindow& window) {
  KernelBreakdown out;
  out.rank = rank.rank;
  out.window = window;
  std::unordered_map<int32_t, size_t> kernel_index;
  std::unordered_map<std::string, size_t> operator_index;
  for (const GpuActivity& a : rank.gpu) {
    if (a.start_ns >= window.end_ns) break;
    if (a.start_ns < window.begin_ns) continue;
    const int64_t d = a.duration_ns();
    auto [it, added] = kernel_index.emplace(a.name, out.kernels.size());
    if (added) {
      KernelTime k;
      k.name = rank.name_of(a.name);
      k.kind = a.kind;
      k.time_class = a.time_class;
      k.min_ns = d;
      k.max_ns = d;
      out.kernels.push_back(std::move(k));
    }
    KernelTime& k = out.kernels[it->second];
    ++k.count;
    k.total_ns += d;
    k.min_ns = std::min(k.min_ns, d);
    k.max_ns = std::max(k.max_ns, d);
    if (a.bytes > 0) k.bytes += a.bytes;
    out.class_ns[static_cast<size_t>(a.time_class)] += d;
    std::string op = operator_name_of(rank, a);
    auto [o, op_added] = operator_index.emplace(op, out.operators.size());
    if (op_added) out.operators.push_back(OperatorGpuTime{std::move(op), 0, 0});
    ++out.operators[o->second].kernels;
    out.operators[o->second].total_ns += d;
  }
  std::stable_sort(
      out.kernels.begin(), out.kernels.end(),
      [](const KernelTime& a, const KernelTime& b) { return a.total_ns > b.total_ns; });
  std::stable_sort(
      out.operators.begin(), out.operators.end(),
      [](const OperatorGpuTime& a, const OperatorGpuTime& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace ts
